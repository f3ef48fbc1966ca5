/**
 * Serves the account dashboard at /dashboard: one server-rendered page plus its scripts and
 * stylesheet, taken from a generated module (asset_sources.ts) so there is no file read at run
 * time and no import Deno Deploy's Deno refuses.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { sha256Hex } from "../../domain/bytes.ts";
import { acceptsGzip } from "../http/compress.ts";
import { problems } from "../router/define.ts";
import { pagePolicy } from "../http/page_policy.ts";
import { noneMatchHits } from "../http/list_headers.ts";
import type { AppEnv } from "../router/env.ts";
import { assetSources } from "./asset_sources.ts";
import { DashboardPage } from "./page.tsx";
import { bundleScript } from "./script_bundle.ts";

/**
 * Only the page's own script, styles and API calls: no inline code, no third parties, no
 * framing, and no native form submission (a form that posted without the script would put
 * credentials in a URL).
 */
const CONTENT_SECURITY_POLICY = pagePolicy({ script: "'self'", style: "'self'" });

/** A static response body, kept with its gzip form and a version hash of its content. */
interface Asset {
  body: string;
  gzipped: Uint8Array<ArrayBuffer>;
  type: string;
  version: string;
}

async function asset(body: string, type: string): Promise<Asset> {
  const stream = new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"));
  return {
    body,
    gzipped: new Uint8Array(await new Response(stream).arrayBuffer()),
    type,
    version: (await sha256Hex(body)).slice(0, 16),
  };
}

/** A source file's text; a name the generated module lacks stops the start, not a browser. */
function source(path: string): string {
  const text = assetSources[path];
  if (text === undefined) throw new Error(`routes/dashboard/${path} is not in asset_sources.ts`);
  return text;
}

// One module in several files, one job each, joined in this order: each part imports only from
// the parts before it (bundleScript refuses any other order, so the imports form no circle), and
// top-level code runs in it: later parts add to the earlier ones' tables, such as the views'
// loaders. chart.js is served on its own and imported by name.
const script = await asset(
  bundleScript(
    [
      "dom.js",
      "api.js",
      "forms.js",
      "format.js",
      "dialogs.js",
      "keys_table.js",
      "views.js",
      "key_actions.js",
      "key_usage.js",
      "key_buttons.js",
      "webhooks.js",
      "security_log.js",
      "alerts.js",
      "messages.js",
      "live.js",
      "session.js",
    ].map((name) => ({ name, source: source(`script/${name}`) })),
    ["chart.js"],
  ),
  "text/javascript; charset=utf-8",
);
// One stylesheet in parts, joined in cascade order.
const style = await asset(
  [
    "base.css",
    "controls.css",
    "forms.css",
    "layout.css",
    "keys_table.css",
    "profile_dialogs.css",
    "narrow.css",
    "key_details.css",
    "webhooks.css",
    "messages.css",
  ].map((name) => source(`styles/${name}`)).join("\n"),
  "text/css; charset=utf-8",
);
const chart = await asset(source("script/chart.js"), "text/javascript; charset=utf-8");
const page = await asset(
  "<!DOCTYPE html>" + (
    <DashboardPage
      assets={{
        script: `/dashboard/app.js?v=${script.version}`,
        style: `/dashboard/app.css?v=${style.version}`,
      }}
    />
  ).toString(),
  "text/html; charset=utf-8",
);

/**
 * Serves a static body with the page's security headers, gzipped when the client takes it,
 * answering 304 when the client's copy is current.
 */
function serve(c: Context<AppEnv>, item: Asset, cacheControl: string) {
  c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  c.header("X-Content-Type-Options", "nosniff");
  // frame-ancestors for browsers that know CSP 2, this for those that do not.
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Cache-Control", cacheControl);
  c.header("Vary", "Accept-Encoding");
  // Weak, because the gzip and plain forms share it.
  const etag = `W/"${item.version}"`;
  c.header("ETag", etag);
  if (noneMatchHits(c.req.header("If-None-Match"), etag)) return c.body(null, 304);
  c.header("Content-Type", item.type);
  if (!acceptsGzip(c.req.header("Accept-Encoding"))) return c.body(item.body, 200);
  c.header("Content-Encoding", "gzip");
  return c.body(item.gzipped, 200);
}

/** An asset's URL carries its hash, so a request naming the current one may be cached for good. */
function serveAsset(c: Context<AppEnv>, item: Asset) {
  const current = c.req.query("v") === item.version;
  return serve(c, item, current ? "public, max-age=31536000, immutable" : "no-cache");
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
    304: { description: "Not modified (If-None-Match matched the ETag)" },
    ...problems(429),
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
      ...problems(429),
    },
  });
}

/** Registers GET /dashboard and its assets on the app, outside the versioned API. */
export function registerDashboard(app: OpenAPIHono<AppEnv>) {
  app.openapi(pageRoute, (c) => serve(c, page, "no-cache"));
  app.openapi(
    assetRoute("/dashboard/app.js", "text/javascript", "script"),
    (c) => serveAsset(c, script),
  );
  app.openapi(
    assetRoute("/dashboard/app.css", "text/css", "stylesheet"),
    (c) => serveAsset(c, style),
  );
  // Imported by app.js as "./chart.js" (the name it has on disk, so the type check resolves it
  // too), without a version: revalidated by its ETag.
  app.openapi(
    assetRoute("/dashboard/chart.js", "text/javascript", "usage chart module"),
    (c) => serveAsset(c, chart),
  );
}
