/**
 * Targets of the links the service writes (`Link`), built only from a base it can trust: never
 * from a `Host` header that nothing has checked (see docs/security.md, "Links").
 */
import type { Context } from "hono";
import { isLoopback } from "../../domain/ip.ts";
import type { AppEnv } from "../router/env.ts";

/**
 * A request that only this machine could have made to this machine: a loopback `Host` sent from
 * a loopback client address. A `Host` alone proves nothing (any client may send `localhost`).
 */
function isLocalRequest(hostname: string, clientIp: string): boolean {
  const host = hostname.toLowerCase();
  const loopbackHost = host === "localhost" || host.endsWith(".localhost") || isLoopback(host);
  return loopbackHost && isLoopback(clientIp);
}

/**
 * The current request's URL with `edit` applied to its query, as a link target: absolute under
 * `PUBLIC_URL` when set; absolute on the request's own URL when both its host and its client are
 * loopback (local use); otherwise path-absolute (`/v1/tasks?cursor=...`), which RFC 8288 lets a client resolve
 * against the URL it sent, so a forged `Host` cannot point the link, or a cache keeping the
 * answer, at another host.
 */
export function linkTarget(c: Context<AppEnv>, edit: (query: URLSearchParams) => void): string {
  const url = new URL(c.req.url);
  edit(url.searchParams);
  const base = c.get("deps").settings.PUBLIC_URL;
  if (base) return `${base}${url.pathname}${url.search}`;
  if (isLocalRequest(url.hostname, c.get("clientIp"))) return url.href;
  return `${url.pathname}${url.search}`;
}
