/**
 * GET /: a small page for whoever opens the service's address in a browser, pointing to the
 * dashboard, the reference and the document, instead of a JSON 404.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { pagePolicy } from "../http/page_policy.ts";
import type { AppEnv } from "../router/env.ts";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Task Marketplace API</title>
<link rel="icon" href="/favicon.ico">
</head><body><main>
<h1>Task Marketplace API</h1>
<p>A REST service for posting and finding tasks. Its API is under <code>/api/v1</code>.</p>
<ul>
<li><a href="/dashboard">Dashboard</a>: sign up, create and manage API keys, webhooks and alerts</li>
<li><a href="/docs">API reference</a>: every endpoint, with a form to try it</li>
<li><a href="/openapi.json">openapi.json</a>: the OpenAPI 3.1 document</li>
<li><a href="/health">/health</a>: the service and its store</li>
</ul>
</main></body></html>
`;

// No script and no style: the page is its text and links only.
const POLICY = pagePolicy({ script: "'none'", style: "'none'" });

const route = createRoute({
  method: "get",
  path: "/",
  tags: ["Service"],
  summary: "Landing page (HTML) linking the dashboard, /docs and /openapi.json",
  description: "Free of the rate budget, as /health is: the same bytes for every request.",
  responses: {
    200: {
      description: "A static HTML page of links",
      content: { "text/html": { schema: z.string() } },
    },
  },
});

export function registerLanding(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    c.header("Content-Security-Policy", POLICY);
    c.header("X-Frame-Options", "DENY");
    c.header("Referrer-Policy", "no-referrer");
    return c.html(PAGE, 200);
  });
}
