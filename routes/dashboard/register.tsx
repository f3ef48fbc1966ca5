/**
 * Serves the account dashboard at /dashboard: one server-rendered page plus its scripts and
 * stylesheet, imported as text so there is no build step and no file read at run time.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { sha256Hex } from "../../domain/bytes.ts";
import { acceptsGzip } from "../http/compress.ts";
import { problems } from "../router/define.ts";
import { pagePolicy } from "../http/page_policy.ts";
import { noneMatchHits } from "../http/http_lists.ts";
import type { AppEnv } from "../router/env.ts";
import apiPart from "./script/api.js" with { type: "text" };
import formsPart from "./script/forms.js" with { type: "text" };
import formatPart from "./script/format.js" with { type: "text" };
import dialogsPart from "./script/dialogs.js" with { type: "text" };
import sessionPart from "./script/session.js" with { type: "text" };
import viewsPart from "./script/views.js" with { type: "text" };
import keysTablePart from "./script/keys_table.js" with { type: "text" };
import keyActionsPart from "./script/key_actions.js" with { type: "text" };
import keyUsagePart from "./script/key_usage.js" with { type: "text" };
import webhooksPart from "./script/webhooks.js" with { type: "text" };
import securityLogPart from "./script/security_log.js" with { type: "text" };
import alertsPart from "./script/alerts.js" with { type: "text" };
import messagesPart from "./script/messages.js" with { type: "text" };
import livePart from "./script/live.js" with { type: "text" };
import baseStyle from "./styles/base.css" with { type: "text" };
import controlsStyle from "./styles/controls.css" with { type: "text" };
import formsStyle from "./styles/forms.css" with { type: "text" };
import layoutStyle from "./styles/layout.css" with { type: "text" };
import keysTableStyle from "./styles/keys_table.css" with { type: "text" };
import profileDialogsStyle from "./styles/profile_dialogs.css" with { type: "text" };
import narrowStyle from "./styles/narrow.css" with { type: "text" };
import keyDetailsStyle from "./styles/key_details.css" with { type: "text" };
import webhooksStyle from "./styles/webhooks.css" with { type: "text" };
import messagesStyle from "./styles/messages.css" with { type: "text" };
import chartText from "./script/chart.js" with { type: "text" };
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

// One module in several files, one job each, joined in this order (top-level code runs in it:
// later parts add to the earlier ones' tables, such as the views' loaders). chart.js is served
// on its own and imported by name.
const script = await asset(
  bundleScript([
    { name: "api.js", source: apiPart },
    { name: "forms.js", source: formsPart },
    { name: "format.js", source: formatPart },
    { name: "dialogs.js", source: dialogsPart },
    { name: "session.js", source: sessionPart },
    { name: "views.js", source: viewsPart },
    { name: "keys_table.js", source: keysTablePart },
    { name: "key_actions.js", source: keyActionsPart },
    { name: "key_usage.js", source: keyUsagePart },
    { name: "webhooks.js", source: webhooksPart },
    { name: "security_log.js", source: securityLogPart },
    { name: "alerts.js", source: alertsPart },
    { name: "messages.js", source: messagesPart },
    { name: "live.js", source: livePart },
  ], ["chart.js"]),
  "text/javascript; charset=utf-8",
);
// One stylesheet in parts, joined in cascade order.
const style = await asset(
  [
    baseStyle,
    controlsStyle,
    formsStyle,
    layoutStyle,
    keysTableStyle,
    profileDialogsStyle,
    narrowStyle,
    keyDetailsStyle,
    webhooksStyle,
    messagesStyle,
  ].join("\n"),
  "text/css; charset=utf-8",
);
const chart = await asset(chartText, "text/javascript; charset=utf-8");
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
