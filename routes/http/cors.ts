/**
 * CORS for the versioned API: any origin may call it from a browser, since credentials travel in
 * headers (API key, session token) and never in cookies, so no ambient credential rides along.
 */
import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../router/env.ts";

/** Request headers a browser client may send beyond the CORS-safelisted ones. */
export const CORS_ALLOW_HEADERS = [
  "Authorization",
  "X-API-Key",
  "Content-Type",
  "Idempotency-Key",
  "X-Request-Id",
  "If-None-Match",
];

/** Response headers a browser client may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = [
  "X-Request-Id",
  "Location",
  "Link",
  "X-Next-Cursor",
  "X-Total-Count",
  "Idempotent-Replayed",
  "Allow",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "ETag",
  "Vary",
  "Cache-Control",
];

/**
 * `Access-Control-Allow-Origin: *` on every answer, errors included, so a browser client can
 * read problem bodies and rate-limit headers. A preflight (`OPTIONS`) of a path that exists
 * answers 204 with that path's methods; of a path that does not, it falls through to 404.
 * `unknownRoute`, when given, answers a request whose path or method the API does not have
 * instead of passing it on: the app's route check rides in this layer, since every layer costs
 * every request a call, a promise and an await.
 */
export function apiCors(
  methodsFor: (path: string) => string[],
  unknownRoute?: (c: Context<AppEnv>) => Promise<Response>,
): MiddlewareHandler<AppEnv> {
  const handler = cors({
    origin: "*",
    allowMethods: (_origin, c) => methodsFor(c.req.path),
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 7200,
  });
  const expose = CORS_EXPOSE_HEADERS.join(",");
  return async (c, next) => {
    const methods = methodsFor(c.req.path);
    if (c.req.method === "OPTIONS") {
      if (methods.length === 0) return unknownRoute ? await unknownRoute(c) : await next();
      return await handler(c, next);
    }
    // What hono/cors does for any other method, without reading `c.res` before the handler:
    // that builds a placeholder response whose headers Hono then copies into the real one twice
    // (bench/http/http.ts). Set now, the headers go into the response the handler builds; only a
    // response made by hand needs them added afterwards.
    c.header("Access-Control-Allow-Origin", "*");
    c.header("Access-Control-Expose-Headers", expose);
    if (!unknownRoute || methods.includes(c.req.method)) await next();
    else c.res = await unknownRoute(c);
    if (!c.res.headers.has("Access-Control-Allow-Origin")) {
      c.res.headers.set("Access-Control-Allow-Origin", "*");
      c.res.headers.set("Access-Control-Expose-Headers", expose);
    }
  };
}
