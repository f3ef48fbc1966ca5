/**
 * The storage half of who may hear an event: an endpoint's grantor resolved to its rights now
 * (a key's current scopes, or none once it is revoked or expired).
 */
import { type ApiKeyRecord, isActive } from "../../domain/api_key.ts";
import { type EventType, selects } from "../../domain/webhooks/event.ts";
import {
  EVENT_READERS,
  type Grant,
  mayHear,
  NO_GRANT,
} from "../../domain/webhooks/event_access.ts";
import type { WebhookRecord } from "../../domain/webhooks/webhook.ts";
import { apiKeys } from "../keyspace.ts";

/** The rights of the endpoint's grantor at `now`; a record without one has none. */
export async function currentGrant(
  kv: Deno.Kv,
  hook: WebhookRecord,
  now: number,
): Promise<Grant> {
  const by = hook.grantedBy;
  if (!by) return NO_GRANT;
  if (by.via === "session") return by;
  const key = (await kv.get<ApiKeyRecord>(apiKeys.record(hook.userId, by.keyId))).value;
  return key && isActive(key, now) ? { via: "api_key", scopes: key.scopes } : NO_GRANT;
}

/** True when the endpoint's grantor may read `type` now (one read for a key's endpoint). */
export async function grantAllows(
  kv: Deno.Kv,
  check: { hook: WebhookRecord; type: EventType; now: number },
): Promise<boolean> {
  if (EVENT_READERS[check.type] === null) return true;
  return mayHear(await currentGrant(kv, check.hook, check.now), check.type);
}

/**
 * Why `hook` may not hear an event of `type` now, or null when it may: its current events must
 * select the type and its current grantor read it. Judged at every attempt, retry and resend, so
 * a key that re-aims an endpoint takes nothing stored or pending with it. `webhook.test` is sent
 * on request whatever the endpoint selects, and carries only the endpoint's own view.
 */
export async function whyNotHeard(
  kv: Deno.Kv,
  check: { hook: WebhookRecord; type: string; now: number },
): Promise<"event_not_selected" | "grantor_may_not_read" | null> {
  const { hook } = check;
  if (check.type === "webhook.test") return null;
  if (!(check.type in EVENT_READERS)) return "event_not_selected";
  const type = check.type as EventType;
  if (!selects(hook.events, type)) return "event_not_selected";
  return await grantAllows(kv, { hook, type, now: check.now }) ? null : "grantor_may_not_read";
}
