/**
 * API key expiry notices: `api_key.expiring` 7 days and 1 day before a key expires, and
 * `api_key.expired` when it does (an event and a security log entry). Their jobs are written with
 * the key's creation, each due at its notice's time, however far ahead. The expiry's job also
 * moves the record out of the account's live keys (kv/api_keys/key_records.ts).
 */
import { type ApiKeyRecord, toMetadata } from "../../domain/api_key.ts";
import type { EventType } from "../../domain/webhooks/event.ts";
import { SERVICE_ORIGIN } from "../../domain/security_log.ts";
import { atomically } from "../commit.ts";
import { addEffects } from "../effects.ts";
import { addJob } from "../jobs/schedule.ts";
import type { JobContext, JobOutcome, JobPayload, KeyNotice } from "../jobs/types.ts";
import { keyNotices } from "../keyspace.ts";
import { archiveExpired, pickRecord, recordPlaces } from "./key_records.ts";

const DAY = 86_400_000;

const NOTICES: { notice: KeyNotice; before: number; type: EventType }[] = [
  { notice: "expiring_7d", before: 7 * DAY, type: "api_key.expiring" },
  { notice: "expiring_1d", before: DAY, type: "api_key.expiring" },
  { notice: "expired", before: 0, type: "api_key.expired" },
];

/** Adds to `op` (a key's creation) the jobs of the key's notices still ahead of `now`. */
export function scheduleKeyNotices(op: Deno.AtomicOperation, key: ApiKeyRecord, now: number) {
  const expiresAt = Date.parse(key.expiresAt);
  for (const { notice, before } of NOTICES) {
    const dueAt = expiresAt - before;
    if (before > 0 && dueAt <= now) continue;
    addJob(op, { kind: "api_key_notice", userId: key.userId, keyId: key.id, notice, dueAt }, dueAt);
  }
}

/**
 * Job handler of `api_key_notice`: raises the notice once, for a key still expiring then; at the
 * expiry, moves the record to the expired keys (also when an older version raised the notice).
 */
export async function keyNotice(
  ctx: JobContext,
  message: Extract<JobPayload, { kind: "api_key_notice" }>,
): Promise<JobOutcome> {
  const { kv } = ctx;
  const now = ctx.now();
  // Run early (a clock behind the writer's): due again at its time.
  if (now < message.dueAt) return { again: { at: message.dueAt } };
  const spec = NOTICES.find((n) => n.notice === message.notice);
  if (!spec) return;
  await atomically("The key changed too often to raise its notice", async () => {
    const [live, expired, sent] = await kv.getMany<[ApiKeyRecord, ApiKeyRecord, boolean]>([
      ...recordPlaces(message.userId, message.keyId),
      keyNotices.sent(message.keyId, message.notice),
    ]);
    const { entry, moved } = pickRecord([live, expired]);
    const key = entry.value;
    if (!key || key.revokedAt !== null) return { value: undefined };
    if (Date.parse(key.expiresAt) - spec.before !== message.dueAt) return { value: undefined };
    const move = spec.notice === "expired" && !moved;
    if (sent.value && !move) return { value: undefined };
    const op = kv.atomic().check(entry).check(sent);
    if (move) archiveExpired(op, key);
    if (sent.value) return { value: undefined, op };
    op.set(keyNotices.sent(message.keyId, message.notice), true, { expireIn: 400 * DAY });
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
