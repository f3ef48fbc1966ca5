/**
 * The per-account event log of live streams: an event enters it in the atomic of the change that
 * raised it (as pending, by ULID), the sequencer (sequencer.ts) gives it its place, and streams
 * read it by place. A body is kept in the entry, or for the rare body past one value, in the
 * webhook body store it shares with deliveries.
 */
import { LOG_RETENTION_MS, PENDING_RETENTION_MS } from "../../domain/live/live_rules.ts";
import { eventUlid, type WebhookEvent } from "../../domain/webhooks/event.ts";
import { live } from "../keyspace.ts";
import { readEventBody, writeEventBody } from "../webhooks/webhook_event_bodies.ts";
import { signalAccount } from "./signal.ts";

/** An event as the log keeps it: its id, type, and its body's UTF-8 (null: in the body store). */
export interface LogRecord {
  id: string;
  type: WebhookEvent["type"];
  body: Uint8Array | null;
}

/** A logged event in its place. */
export interface LoggedEvent extends LogRecord {
  seq: number;
}

/** Bytes of a body kept in the log entry itself, under Deno KV's 64 KiB value limit. */
export const INLINE_BODY_BYTES = 60_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// An atomic may raise several events for one account (a batch of matches): the account's
// `raised` key is set once per atomic, as a key set twice in one atomic is refused by some stores.
const raisedIn = new WeakMap<Deno.AtomicOperation, Set<string>>();

/** What logging one event adds to an atomic, for callers that budget their atomics. */
export function logCost(bodyBytes: number): { mutations: number; bytes: number } {
  const parts = bodyBytes > INLINE_BODY_BYTES ? Math.ceil(bodyBytes / 60_000) : 0;
  return { mutations: 3 + parts, bytes: bodyBytes + 256 };
}

/**
 * Adds `event`, raised for `userId`, to the log in `op` (the change's own atomic): its pending
 * entry, the account's `raised` mark (what its feeds compare), and its shard's signal (what
 * processes with streams watch or poll).
 */
export function logEvent(
  op: Deno.AtomicOperation,
  userId: string,
  event: WebhookEvent,
  body: { partsWritten: boolean },
) {
  const ulid = eventUlid(event.id);
  const bytes = encoder.encode(JSON.stringify(event));
  let stored: Uint8Array | null = bytes;
  if (bytes.byteLength > INLINE_BODY_BYTES) {
    // Written here only when the webhook side did not: both write the same parts.
    stored = null;
    if (!body.partsWritten) writeEventBody(op, event);
  }
  const record: LogRecord = { id: event.id, type: event.type, body: stored };
  op.set(live.pending(userId, ulid), record, { expireIn: PENDING_RETENTION_MS });
  let accounts = raisedIn.get(op);
  if (!accounts) raisedIn.set(op, accounts = new Set());
  if (accounts.has(userId)) return;
  accounts.add(userId);
  op.set(live.raised(userId), ulid, { expireIn: LOG_RETENTION_MS + 3600_000 });
  signalAccount(op, userId);
}

/** The JSON text of a logged event's body (the webhook body), or null once it has expired. */
export async function bodyText(kv: Deno.Kv, event: LogRecord): Promise<string | null> {
  if (event.body) return decoder.decode(event.body);
  return await readEventBody(kv, eventUlid(event.id));
}

/** The logged events after place `after` up to `upTo` (inclusive), in order, at most `limit`. */
export async function readLog(
  kv: Deno.Kv,
  range: { userId: string; after: number; upTo: number; limit?: number },
): Promise<LoggedEvent[]> {
  const { userId, after, upTo } = range;
  if (upTo <= after) return [];
  const found: LoggedEvent[] = [];
  const entries = kv.list<LogRecord>({
    start: live.log(userId, after + 1),
    end: live.log(userId, upTo + 1),
  }, { limit: range.limit ?? 500 });
  for await (const entry of entries) found.push({ ...entry.value, seq: entry.key[2] as number });
  return found;
}

/** The place of event `ulid` in the account's log, or null when the log does not hold it. */
export async function placeOf(kv: Deno.Kv, userId: string, ulid: string): Promise<number | null> {
  return (await kv.get<number>(live.seqOf(userId, ulid))).value;
}
