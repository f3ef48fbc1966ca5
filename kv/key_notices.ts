/**
 * API key expiry notices: `api_key.expiring` 7 days and 1 day before a key expires, and
 * `api_key.expired` when it does (an event and a security log entry). Their queue messages are
 * enqueued with the key's creation; a queue delay is at most 30 days, so a notice further out
 * waits again when it arrives early.
 */
import { type ApiKeyRecord, toMetadata } from "../domain/api_key.ts";
import type { EventType } from "../domain/event.ts";
import { SERVICE_ORIGIN } from "../domain/security_log.ts";
import { atomically, commit } from "./commit.ts";
import { addEffects } from "./effects.ts";
import { apiKeys, keyNotices } from "./keys.ts";
import { HANDLER_RETRIES, type KeyNotice, type QueueContext, type QueueMessage } from "./queue.ts";

const DAY = 86_400_000;
/** Deno KV refuses a longer enqueue delay. */
const MAX_QUEUE_DELAY_MS = 30 * DAY;

const NOTICES: { notice: KeyNotice; before: number; type: EventType }[] = [
  { notice: "expiring_7d", before: 7 * DAY, type: "api_key.expiring" },
  { notice: "expiring_1d", before: DAY, type: "api_key.expiring" },
  { notice: "expired", before: 0, type: "api_key.expired" },
];

function enqueueNotice(
  op: Deno.AtomicOperation,
  message: Extract<QueueMessage, { kind: "api_key_notice" }>,
  now: number,
) {
  const delay = Math.min(Math.max(0, message.dueAt - now), MAX_QUEUE_DELAY_MS);
  op.enqueue(message, { delay, backoffSchedule: HANDLER_RETRIES });
}

/** Adds to `op` (a key's creation) the messages of the key's notices still ahead of `now`. */
export function scheduleKeyNotices(op: Deno.AtomicOperation, key: ApiKeyRecord, now: number) {
  const expiresAt = Date.parse(key.expiresAt);
  for (const { notice, before } of NOTICES) {
    const dueAt = expiresAt - before;
    if (before > 0 && dueAt <= now) continue;
    enqueueNotice(
      op,
      { kind: "api_key_notice", userId: key.userId, keyId: key.id, notice, dueAt },
      now,
    );
  }
}

/** Queue handler of `api_key_notice`: raises the notice once, for a key still expiring then. */
export async function keyNotice(
  ctx: QueueContext,
  message: Extract<QueueMessage, { kind: "api_key_notice" }>,
) {
  const { kv } = ctx;
  const now = ctx.now();
  if (now < message.dueAt) {
    const op = kv.atomic();
    enqueueNotice(op, message, now);
    await commit(op);
    return;
  }
  const spec = NOTICES.find((n) => n.notice === message.notice);
  if (!spec) return;
  await atomically("The key changed too often to raise its notice", async () => {
    const [entry, sent] = await kv.getMany<[ApiKeyRecord, boolean]>([
      apiKeys.record(message.userId, message.keyId),
      keyNotices.sent(message.keyId, message.notice),
    ]);
    const key = entry.value;
    if (!key || key.revokedAt !== null || sent.value) return { value: undefined };
    if (Date.parse(key.expiresAt) - spec.before !== message.dueAt) return { value: undefined };
    const op = kv.atomic().check(entry).check(sent)
      .set(keyNotices.sent(message.keyId, message.notice), true, { expireIn: 400 * DAY });
    await addEffects(kv, op, {
      userId: key.userId,
      now,
      event: { type: spec.type, data: toMetadata(key, now) },
      ...(spec.notice === "expired"
        ? { security: { type: "api_key.expired", origin: SERVICE_ORIGIN, keyId: key.id } }
        : {}),
    });
    return { value: undefined, op };
  });
}
