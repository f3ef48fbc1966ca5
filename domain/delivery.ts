/**
 * Deliveries: one event sent to one endpoint, with every attempt made so far, and the rules
 * that decide what follows an attempt (done, retry later, or give up).
 */
import { z } from "zod";
import { type DeliveryPolicy, retryDelay } from "./webhook_schedule.ts";

/** Attempts kept per delivery (the schedule makes eight; resends add more). */
export const MAX_ATTEMPTS_KEPT = 20;
/** Deliveries are listed for this long after their last change. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

export const DeliveryAttempt = z.object({
  attempt: z.number().int(),
  at: z.string(),
  statusCode: z.number().int().nullable().meta({ description: "null: no HTTP answer" }),
  durationMs: z.number().int(),
  error: z.string().nullable().meta({ description: "Why there was no answer, if so" }),
}).meta({ id: "DeliveryAttempt" });
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const DeliveryView = z.object({
  id: z.uuid(),
  webhookId: z.uuid(),
  eventId: z.string().meta({ description: "evt_<ulid>: the webhook-id header of every attempt" }),
  eventType: z.string(),
  status: z.enum(["pending", "succeeded", "failed"]),
  attempts: z.number().int().meta({ description: "Attempts made so far" }),
  lastStatusCode: z.number().int().nullable(),
  lastDurationMs: z.number().int().nullable(),
  nextRetryAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  history: z.array(DeliveryAttempt).meta({ description: "The attempts, oldest first" }),
}).meta({ id: "WebhookDelivery" });
export type DeliveryView = z.infer<typeof DeliveryView>;

/**
 * A stored delivery: its view. The body every attempt sends is the event's, stored once apart
 * (kv/webhook_event_bodies.ts); records written before that carry it in `body`.
 */
export interface DeliveryRecord {
  id: string;
  webhookId: string;
  userId: string;
  eventId: string;
  eventType: string;
  body?: string;
  status: "pending" | "succeeded" | "failed";
  attemptCount: number;
  nextRetryAt: string | null;
  createdAt: string;
  updatedAt: string;
  history: DeliveryAttempt[];
}

export function toDeliveryView(d: DeliveryRecord): DeliveryView {
  const last = d.history.at(-1);
  return {
    id: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attemptCount,
    lastStatusCode: last?.statusCode ?? null,
    lastDurationMs: last?.durationMs ?? null,
    nextRetryAt: d.nextRetryAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    history: d.history,
  };
}

/** A 2xx answer is success; anything else, or none, is a failure. */
export function succeeded(attempt: DeliveryAttempt): boolean {
  return attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
}

/**
 * The delivery after `attempt`, and the delay before the next attempt when one follows
 * (null: the delivery is settled).
 */
export function afterAttempt(
  d: DeliveryRecord,
  attempt: DeliveryAttempt,
  policy: DeliveryPolicy,
): { next: DeliveryRecord; retryIn: number | null } {
  const ok = succeeded(attempt);
  const retryIn = ok ? null : retryDelay(policy, attempt.attempt);
  const next: DeliveryRecord = {
    ...d,
    attemptCount: attempt.attempt,
    status: ok ? "succeeded" : retryIn === null ? "failed" : "pending",
    nextRetryAt: retryIn === null ? null : new Date(Date.parse(attempt.at) + retryIn).toISOString(),
    updatedAt: attempt.at,
    history: [...d.history, attempt].slice(-MAX_ATTEMPTS_KEPT),
  };
  return { next, retryIn };
}
