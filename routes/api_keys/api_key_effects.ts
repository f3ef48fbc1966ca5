/** What a key change raises: its webhook event (data: the key's metadata) and security entry. */
import type { Context } from "hono";
import { type ApiKeyRecord, toMetadata } from "../../domain/api_key.ts";
import type { EventType } from "../../domain/webhooks/event.ts";
import type { SecurityEventType } from "../../domain/security_log.ts";
import type { Effects } from "../../kv/effects.ts";
import type { AppEnv } from "../router/env.ts";
import { originOf } from "../http/origin.ts";

/** The effects of one key change made by this request, from the key before and after. */
export function keyEffects(
  c: Context<AppEnv>,
  types: { event?: EventType; security: SecurityEventType },
) {
  const now = c.get("deps").now();
  return (_before: ApiKeyRecord | null, after: ApiKeyRecord): Effects & { now: number } => ({
    now,
    ...(types.event ? { event: { type: types.event, data: toMetadata(after, now) } } : {}),
    security: { type: types.security, origin: originOf(c), keyId: after.id },
  });
}
