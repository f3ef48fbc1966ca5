/**
 * Deliveries in KV: one record per event and endpoint, created with the job of its first attempt
 * in one atomic; each attempt's outcome is recorded with the job of the next attempt in one
 * atomic, so a delivery is never lost between attempts nor retried twice.
 */
import { eventUlid, type WebhookEvent } from "../../domain/webhooks/event.ts";
import {
  afterAttempt,
  DELIVERY_RETENTION_MS,
  type DeliveryAttempt,
  type DeliveryRecord,
  noAnswer,
} from "../../domain/webhooks/delivery.ts";
import type { WebhookRecord } from "../../domain/webhooks/webhook.ts";
import type { DeliveryPolicy } from "../../domain/webhooks/webhook_schedule.ts";
import { atomically, commit } from "../commit.ts";
import { readNewestFirst } from "../cursor.ts";
import { addJob } from "../jobs/schedule.ts";
import type { JobPayload } from "../jobs/types.ts";
import { webhooks } from "../keyspace.ts";
import { writeEventBody } from "./webhook_event_bodies.ts";
import type { SecurityDraft } from "../../domain/security_log.ts";
import { recordSecurity } from "../security_log.ts";

const CONFLICT = "The delivery changed too often to complete; try again";

function deliveryJob(d: DeliveryRecord, attempt: number): JobPayload {
  return {
    kind: "webhook_delivery",
    userId: d.userId,
    webhookId: d.webhookId,
    eventUlid: eventUlid(d.eventId),
    attempt,
  };
}

function writeDelivery(op: Deno.AtomicOperation, d: DeliveryRecord) {
  const ulid = eventUlid(d.eventId);
  op.set(webhooks.delivery(d.webhookId, ulid), d, { expireIn: DELIVERY_RETENTION_MS })
    .set(webhooks.deliveryById(d.webhookId, d.id), ulid, { expireIn: DELIVERY_RETENTION_MS });
}

/** What a delivery needs of its event: the body is stored apart. */
export type EventRef = Pick<WebhookEvent, "id" | "type">;

function newDelivery(hook: WebhookRecord, event: EventRef, now: number): DeliveryRecord {
  const at = new Date(now).toISOString();
  return {
    id: crypto.randomUUID(),
    webhookId: hook.id,
    userId: hook.userId,
    eventId: event.id,
    eventType: event.type,
    status: "pending",
    attemptCount: 0,
    nextRetryAt: at,
    createdAt: at,
    updatedAt: at,
    history: [],
  };
}

/**
 * Starts the delivery of `event` to `hook`: the record and the first attempt's job in one
 * atomic, unless the delivery exists already (a fan-out that runs again does nothing twice).
 * A whole `event` (a test send) has its body stored in the same atomic; a fan-out's event had it
 * stored with its cause. With `unstored` (why the body could not be stored) the delivery is
 * recorded as failed at once, with that reason as its one attempt.
 */
export async function startDelivery(
  kv: Deno.Kv,
  start: { hook: WebhookRecord; event: EventRef | WebhookEvent; now: number; unstored?: string },
): Promise<DeliveryRecord | null> {
  const { hook, event, now } = start;
  let unstored = start.unstored ?? null;
  const op = kv.atomic()
    .check({ key: webhooks.delivery(hook.id, eventUlid(event.id)), versionstamp: null });
  if ("data" in event) unstored = writeEventBody(op, event);
  let d = newDelivery(hook, event, now);
  if (unstored) {
    const at = new Date(now).toISOString();
    const attempt = { attempt: 1, at, durationMs: 0, ...noAnswer("event_too_large") };
    d = { ...d, status: "failed", attemptCount: 1, nextRetryAt: null, history: [attempt] };
  } else {
    addJob(op, deliveryJob(d, 1));
  }
  writeDelivery(op, d);
  return (await commit(op)).ok ? d : null;
}

/** A delivery by its event, or null. */
export async function getDeliveryByEvent(
  kv: Deno.Kv,
  webhookId: string,
  ulid: string,
): Promise<Deno.KvEntryMaybe<DeliveryRecord>> {
  return await kv.get<DeliveryRecord>(webhooks.delivery(webhookId, ulid));
}

/** A page of an endpoint's deliveries, newest event first. */
export async function listDeliveries(
  kv: Deno.Kv,
  webhookId: string,
  page: { limit: number; before?: string },
): Promise<{ deliveries: DeliveryRecord[]; next: string | null }> {
  const read = await readNewestFirst<DeliveryRecord>(kv, {
    prefix: webhooks.deliveriesPrefix(webhookId),
    limit: page.limit,
    before: page.before,
  });
  return { deliveries: read.entries.map((e) => e.value), next: read.next };
}

/**
 * Records the outcome of attempt `attempt.attempt` and writes the next one's job, due at its
 * `nextRetryAt`, when the schedule has one, in one atomic. Returns the delivery as written, or
 * null when that attempt was recorded already (a job run again), in which case nothing is written.
 */
export function recordAttempt(
  kv: Deno.Kv,
  ref: {
    userId: string;
    webhookId: string;
    eventUlid: string;
    policy: DeliveryPolicy;
    /** A security log entry written with the outcome (a skipped delivery). */
    security?: SecurityDraft;
  },
  attempt: DeliveryAttempt,
): Promise<DeliveryRecord | null> {
  return atomically<DeliveryRecord | null>(CONFLICT, async () => {
    const entry = await getDeliveryByEvent(kv, ref.webhookId, ref.eventUlid);
    if (!entry.value || entry.value.attemptCount >= attempt.attempt) return { value: null };
    const { next, retryIn } = afterAttempt(entry.value, attempt, ref.policy);
    const op = kv.atomic().check(entry);
    writeDelivery(op, next);
    if (ref.security) {
      recordSecurity(op, ref.userId, { ...ref.security, now: Date.parse(attempt.at) });
    }
    if (retryIn !== null) {
      addJob(op, deliveryJob(next, attempt.attempt + 1), Date.parse(next.nextRetryAt!));
    }
    return { value: next, op };
  });
}

/**
 * Sends a delivery again now, as its next attempt: a failed one gets one more try (and the rest
 * of the schedule, if any is left), a successful one is sent once more. A pending retry of the
 * same attempt number is then skipped, so the delivery never runs two chains of retries.
 */
export function resendDelivery(
  kv: Deno.Kv,
  ref: { webhookId: string; deliveryId: string; now: number },
): Promise<DeliveryRecord | null> {
  const { webhookId, deliveryId } = ref;
  return atomically<DeliveryRecord | null>(CONFLICT, async () => {
    const ulid = await kv.get<string>(webhooks.deliveryById(webhookId, deliveryId));
    if (!ulid.value) return { value: null };
    const entry = await getDeliveryByEvent(kv, webhookId, ulid.value);
    if (!entry.value) return { value: null };
    const next: DeliveryRecord = {
      ...entry.value,
      status: "pending",
      nextRetryAt: new Date(ref.now).toISOString(),
    };
    const op = kv.atomic().check(entry);
    writeDelivery(op, next);
    addJob(op, deliveryJob(next, next.attemptCount + 1), ref.now);
    return { value: next, op };
  });
}
