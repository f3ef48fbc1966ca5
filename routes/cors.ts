/**
 * CORS for the versioned API: any origin may call it from a browser, since credentials travel in
 * headers (API key, session token) and never in cookies, so no ambient credential rides along.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "./env.ts";

/** Request headers a browser client may send beyond the CORS-safelisted ones. */
export const CORS_ALLOW_HEADERS = [
  "Authorization",
  "X-API-Key",
  "Content-Type",
  "Idempotency-Key",
  "X-Request-Id",
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
];

/**
 * `Access-Control-Allow-Origin: *` on every answer, errors included, so a browser client can
 * read problem bodies and rate-limit headers. A preflight (`OPTIONS`) of a path that exists
 * answers 204 with that path's methods; of a path that does not, it falls through to 404.
 */
export function apiCors(methodsFor: (path: string) => string[]): MiddlewareHandler<AppEnv> {
  const handler = cors({
    origin: "*",
    allowMethods: (_origin, c) => methodsFor(c.req.path),
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 7200,
  });
  return async (c, next) => {
    if (c.req.method === "OPTIONS" && methodsFor(c.req.path).length === 0) return await next();
    return await handler(c, next);
  };
}
