/**
 * The absolute URL of the current request as clients should see it: under `PUBLIC_URL` when it
 * is set, so a forged `Host` header cannot point links at another host.
 */
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";

/** The request's URL, rebased on `PUBLIC_URL` when set; a fresh object the caller may edit. */
export function publicRequestUrl(c: Context<AppEnv>): URL {
  const url = new URL(c.req.url);
  const base = c.get("deps").settings.PUBLIC_URL;
  return base ? new URL(`${base}${url.pathname}${url.search}`) : url;
}
