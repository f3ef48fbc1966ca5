/**
 * Serves the account dashboard at /dashboard: one server-rendered page plus its script and
 * stylesheet, imported as text so there is no build step and no file read at run time.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { sha256Hex } from "../../domain/bytes.ts";
import type { AppEnv } from "../env.ts";
import script from "./client.js" with { type: "text" };
import style from "./style.css" with { type: "text" };
import { DashboardPage } from "./page.tsx";

/**
 * Only the page's own script, styles and API calls: no inline code, no third parties, no
 * framing, and no native form submission (a form that posted without the script would put
 * credentials in a URL).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

interface Asset {
  body: string;
  type: string;
  version: string;
}

async function asset(body: string, type: string): Promise<Asset> {
  return { body, type, version: (await sha256Hex(body)).slice(0, 16) };
}

const assets = {
  script: await asset(script, "text/javascript; charset=utf-8"),
  style: await asset(style, "text/css; charset=utf-8"),
};

const page = "<!DOCTYPE html>" + (
  <DashboardPage
    assets={{
      script: `/dashboard/app.js?v=${assets.script.version}`,
      style: `/dashboard/app.css?v=${assets.style.version}`,
    }}
  />
).toString();

function secure(c: Context<AppEnv>) {
  c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
}

/** Serves an asset; its URL carries its hash, so a matching request may be cached for good. */
function serveAsset(c: Context<AppEnv>, item: Asset) {
  secure(c);
  const etag = `"${item.version}"`;
  c.header("ETag", etag);
  c.header(
    "Cache-Control",
    c.req.query("v") === item.version ? "public, max-age=31536000, immutable" : "no-cache",
  );
  if (c.req.header("If-None-Match") === etag) return c.body(null, 304);
  c.header("Content-Type", item.type);
  return c.body(item.body, 200);
}

const pageRoute = createRoute({
  method: "get",
  path: "/dashboard",
  tags: ["Dashboard"],
  summary: "The account dashboard (HTML): sign in, then Settings, Developer, API Keys",
  responses: {
    200: {
      description: "A server-rendered page; its script calls this API with a session token",
      content: { "text/html": { schema: z.string() } },
    },
  },
});

function assetRoute(path: string, type: string, what: string) {
  return createRoute({
    method: "get",
    path,
    tags: ["Dashboard"],
    summary: `The dashboard's ${what}`,
    request: {
      query: z.object({
        v: z.string().optional().openapi({
          description: "Content hash; when it matches, the response may be cached for good",
        }),
      }),
    },
    responses: {
      200: { description: `The ${what}`, content: { [type]: { schema: z.string() } } },
      304: { description: "Not modified (If-None-Match matched the ETag)" },
    },
  });
}

/** Registers GET /dashboard and its two assets on the app, outside the versioned API. */
export function registerDashboard(app: OpenAPIHono<AppEnv>) {
  app.openapi(pageRoute, (c) => {
    secure(c);
    c.header("Cache-Control", "no-cache");
    return c.html(page, 200);
  });
  app.openapi(
    assetRoute("/dashboard/app.js", "text/javascript", "script"),
    (c) => serveAsset(c, assets.script),
  );
  app.openapi(
    assetRoute("/dashboard/app.css", "text/css", "stylesheet"),
    (c) => serveAsset(c, assets.style),
  );
}
