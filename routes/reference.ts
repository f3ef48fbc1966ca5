/** GET /openapi.json (the generated OpenAPI 3.1 document) and GET /docs (its reference page). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { renderDocsPage } from "./docs_page.ts";
import { docsPagePolicy } from "./docs_page_assets.ts";
import { problems } from "./define.ts";
import type { AppEnv } from "./env.ts";
import {
  buildOpenApiDocument,
  type OpenApiDocument,
  registerOpenApiComponents,
} from "./openapi.ts";

const documentRoute = createRoute({
  method: "get",
  path: "/openapi.json",
  tags: ["Service"],
  summary: "This OpenAPI 3.1 document",
  responses: {
    200: {
      description: "The OpenAPI 3.1 document of every endpoint",
      content: {
        "application/json": {
          schema: z.object({ openapi: z.string() }).catchall(z.unknown()).openapi({
            description: "An OpenAPI 3.1 document",
          }),
        },
      },
    },
  },
});

const docsRoute = createRoute({
  method: "get",
  path: "/docs",
  tags: ["Service"],
  summary: "Interactive API reference (HTML), rendered from the OpenAPI document",
  responses: {
    200: {
      description: "A self-contained HTML page; it loads nothing from elsewhere",
      content: { "text/html": { schema: z.string() } },
    },
    ...problems(429),
  },
});

/** Serves the document and the page; both are built once, on first request, from `app`. */
export function registerReference(app: OpenAPIHono<AppEnv>) {
  registerOpenApiComponents(app);
  let document: OpenApiDocument | null = null;
  let page: string | null = null;
  let policy: string | null = null;
  const getDocument = () => document ??= buildOpenApiDocument(app);

  app.openapi(documentRoute, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(getDocument(), 200);
  });

  app.openapi(docsRoute, async (c) => {
    page ??= renderDocsPage(getDocument());
    policy ??= await docsPagePolicy();
    c.header("Cache-Control", "public, max-age=300");
    c.header("Content-Security-Policy", policy);
    c.header("X-Frame-Options", "DENY");
    c.header("Referrer-Policy", "no-referrer");
    return c.html(page, 200);
  });
}
