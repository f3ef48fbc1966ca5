/** What a key change raises: its webhook event (data: the key's metadata) and security entry. */
import { type ApiKeyRecord, toMetadata } from "./api_key.ts";
import type { Effects } from "./effects.ts";
import type { Origin, SecurityEventType } from "./security_log.ts";
import type { EventType } from "./webhooks/event.ts";

/** What the caller knows of a key change before it: when, who, and the types it raises. */
export interface KeyChangeContext {
  now: number;
  origin: Origin;
  event?: EventType;
  security: SecurityEventType;
}

/** The key's event, if the change has one, and its security entry, from the key after. */
export function keyChangeEffects(
  _before: ApiKeyRecord | null,
  after: ApiKeyRecord,
  context: KeyChangeContext,
): Effects {
  const { now, origin, event, security } = context;
  return {
    ...(event ? { event: { type: event, data: toMetadata(after, now) } } : {}),
    security: { type: security, origin, keyId: after.id },
  };
}

/** An edit's security entry: a whitelist change is logged as one, any other edit as an update. */
export function keyEditEffects(
  before: ApiKeyRecord | null,
  after: ApiKeyRecord,
  context: { now: number; origin: Origin },
): Effects {
  const security = before?.ipWhitelist.join() === after.ipWhitelist.join()
    ? "api_key.updated"
    : "api_key.whitelist_changed";
  return keyChangeEffects(before, after, { ...context, security });
}
