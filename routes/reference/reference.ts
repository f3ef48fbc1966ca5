/** GET /openapi.json (the generated OpenAPI 3.1 document) and GET /docs (its reference page). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import { acceptsGzip } from "../http/compress.ts";
import { renderDocsPage } from "./docs_page.ts";
import { docsPagePolicy } from "./docs_page_assets.ts";
import { problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
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
  // The largest answer there is, and unbudgeted: its text and gzip form are made once, not per
  // request.
  let served: Promise<{ text: string; gzipped: Uint8Array<ArrayBuffer> }> | null = null;
  const serveForms = async () => {
    const text = JSON.stringify(getDocument());
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
    return { text, gzipped: new Uint8Array(await new Response(stream).arrayBuffer()) };
  };

  // Typed as the JSON answer the route declares: the body is that JSON's text, or its gzip form.
  const asDocument = (res: Response) =>
    res as Response & TypedResponse<{ openapi: string }, 200, "json">;

  app.openapi(documentRoute, async (c) => {
    const { text, gzipped } = await (served ??= serveForms());
    c.header("Cache-Control", "public, max-age=300");
    c.header("Content-Type", "application/json; charset=utf-8");
    c.header("Vary", "Accept-Encoding");
    if (!acceptsGzip(c.req.header("Accept-Encoding"))) return asDocument(c.body(text, 200));
    c.header("Content-Encoding", "gzip");
    return asDocument(c.body(gzipped, 200));
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
