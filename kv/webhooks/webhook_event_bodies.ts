/**
 * An event's body, stored once for all its deliveries as UTF-8 bytes split in values under the
 * 64 KiB limit, in the atomic that raises the event. A body past MAX_EVENT_BYTES is not stored:
 * its deliveries are recorded as failed, so the cause's atomic never fails for its event's size.
 */
import { eventUlid, type WebhookEvent } from "../../domain/webhooks/event.ts";
import { DELIVERY_RETENTION_MS } from "../../domain/webhooks/delivery.ts";
import { webhooks } from "../keyspace.ts";

/** Bytes per stored part, under Deno KV's 64 KiB value limit. */
const PART_BYTES = 60_000;
/** The largest body stored; far above any event the API's limits allow. */
export const MAX_EVENT_BYTES = 256 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Adds `event`'s body to `op`; the reason it was not stored (too large), or null. */
export function writeEventBody(op: Deno.AtomicOperation, event: WebhookEvent): string | null {
  const bytes = encoder.encode(JSON.stringify(event));
  if (bytes.byteLength > MAX_EVENT_BYTES) {
    return `the event is too large to send (${bytes.byteLength} bytes, at most ${MAX_EVENT_BYTES})`;
  }
  const ulid = eventUlid(event.id);
  for (let part = 0; part * PART_BYTES < bytes.byteLength; part++) {
    const slice = bytes.slice(part * PART_BYTES, (part + 1) * PART_BYTES);
    op.set(webhooks.eventBody(ulid, part), slice, { expireIn: DELIVERY_RETENTION_MS });
  }
  return null;
}

/** The body of the event `ulid`, or null once it has expired. */
export async function readEventBody(kv: Deno.Kv, ulid: string): Promise<string | null> {
  const parts: Uint8Array[] = [];
  for await (const entry of kv.list<Uint8Array>({ prefix: webhooks.eventBodyPrefix(ulid) })) {
    parts.push(entry.value);
  }
  if (parts.length === 0) return null;
  const bytes = new Uint8Array(parts.reduce((sum, p) => sum + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return decoder.decode(bytes);
}
