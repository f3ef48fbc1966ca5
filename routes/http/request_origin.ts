/** Who caused a change, as the security log records it: client address and user agent. */
import type { Context } from "hono";
import type { Origin } from "../../domain/security_log.ts";
import type { AppEnv } from "../router/env.ts";

export function originOf(c: Context<AppEnv>): Origin {
  return { ip: c.get("clientIp") ?? null, userAgent: c.req.header("User-Agent") ?? null };
}
