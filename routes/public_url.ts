/**
 * Targets of the links the service writes (`Link`), built only from a base it can trust: never
 * from a `Host` header that nothing has checked (see docs/security.md, "Links").
 */
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";

/** Hosts that only this machine can name: a request that reached us under one came from here. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The current request's URL with `edit` applied to its query, as a link target: absolute under
 * `PUBLIC_URL` when set; absolute on the request's own URL when its host is loopback (local
 * use); otherwise path-absolute (`/v1/tasks?cursor=...`), which RFC 8288 lets a client resolve
 * against the URL it sent, so a forged `Host` cannot point the link, or a cache keeping the
 * answer, at another host.
 */
export function linkTarget(c: Context<AppEnv>, edit: (query: URLSearchParams) => void): string {
  const url = new URL(c.req.url);
  edit(url.searchParams);
  const base = c.get("deps").settings.PUBLIC_URL;
  if (base) return `${base}${url.pathname}${url.search}`;
  if (isLoopbackHost(url.hostname)) return url.href;
  return `${url.pathname}${url.search}`;
}
