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

/**
 * Why an attempt failed, as a category with a fixed sentence: never the network's own error,
 * whose details (refused, reset, certificate names, resolved addresses) would help map or scan
 * what lies behind a URL.
 */
export const ATTEMPT_FAILURES = {
  http_status: "The endpoint answered with a status other than 2xx",
  timeout: "No answer within the time allowed",
  connection_failed: "The connection to the endpoint failed",
  tls: "The TLS handshake with the endpoint failed",
  invalid_response: "The answer was not an HTTP/1.1 response",
  target_refused: "The URL's host is not a public address webhooks may be sent to",
  endpoint_deleted: "The endpoint was deleted",
  endpoint_disabled: "The endpoint is disabled",
  event_too_large: "The event is too large to send",
  event_expired: "The event is no longer stored (kept 30 days)",
  event_not_selected: "Skipped: the endpoint's events no longer select this type",
  grantor_may_not_read:
    "Skipped: whoever last set the endpoint's URL or events may not read this event type",
} as const;
export type FailureCategory = keyof typeof ATTEMPT_FAILURES;
const FAILURE_CATEGORIES = Object.keys(ATTEMPT_FAILURES) as [FailureCategory, ...FailureCategory[]];

export const DeliveryAttempt = z.object({
  attempt: z.number().int(),
  at: z.string(),
  statusCode: z.number().int().nullable().meta({ description: "null: no HTTP answer" }),
  durationMs: z.number().int(),
  category: z.enum(FAILURE_CATEGORIES).nullable().meta({
    description: "Why the attempt failed (http_status: see statusCode); null when it succeeded",
  }),
  error: z.string().nullable().meta({
    description: "A fixed sentence for the category when there was no HTTP answer; null otherwise",
  }),
}).meta({ id: "DeliveryAttempt" });
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

/** An attempt as stored: those recorded before categories kept the raw error instead. */
export type StoredAttempt = Omit<DeliveryAttempt, "category"> & {
  category?: FailureCategory | null;
};

export type NoAnswer = Exclude<FailureCategory, "http_status">;

/**
 * The categories of an attempt not made because the endpoint may no longer hear the event: the
 * delivery is settled as `skipped`, never retried (a later change of the endpoint does not revive
 * what it was not allowed to hear when it was due).
 */
export const SKIP_CATEGORIES = ["event_not_selected", "grantor_may_not_read"] as const;
export type SkipCategory = typeof SKIP_CATEGORIES[number];

/** True when the attempt was a skip, not a send. */
export function skipped(attempt: Pick<StoredAttempt, "category">): boolean {
  return (SKIP_CATEGORIES as readonly (string | null | undefined)[]).includes(attempt.category);
}
export type Outcome = Pick<DeliveryAttempt, "statusCode" | "category" | "error">;

/** The outcome of an attempt that got no HTTP answer. */
export function noAnswer(category: NoAnswer): Outcome {
  return { statusCode: null, category, error: ATTEMPT_FAILURES[category] };
}

/** The outcome of an attempt answered with `statusCode`. */
export function answered(statusCode: number): Outcome {
  const ok = statusCode >= 200 && statusCode < 300;
  return { statusCode, category: ok ? null : "http_status", error: null };
}

// Attempts stored with a raw error are shown by the category their text points to.
function legacyCategory(a: StoredAttempt): NoAnswer {
  const text = a.error ?? "";
  if (/within \d+ ms/.test(text)) return "timeout";
  if (/certificate|tls|handshake/i.test(text)) return "tls";
  if (/was deleted/.test(text)) return "endpoint_deleted";
  if (/is disabled/.test(text)) return "endpoint_disabled";
  if (/address|resolve|https|credentials|absolute URL/.test(text)) return "target_refused";
  if (/HTTP\/1\.1|status line/.test(text)) return "invalid_response";
  return "connection_failed";
}

/** An attempt as the API shows it, whenever it was stored. */
export function toAttemptView(a: StoredAttempt): DeliveryAttempt {
  const { attempt, at, durationMs } = a;
  if (a.category !== undefined) return { ...a, category: a.category };
  const shown = a.statusCode === null ? noAnswer(legacyCategory(a)) : answered(a.statusCode);
  return { attempt, at, durationMs, ...shown };
}

export const DeliveryView = z.object({
  id: z.uuid(),
  webhookId: z.uuid(),
  eventId: z.string().meta({ description: "evt_<ulid>: the webhook-id header of every attempt" }),
  eventType: z.string(),
  status: z.enum(["pending", "succeeded", "failed", "skipped"]).meta({
    description:
      "skipped: the endpoint may no longer hear the event (its events or its grantor changed); " +
      "the last attempt's category says which",
  }),
  attempts: z.number().int().meta({ description: "Attempts made so far" }),
  lastStatusCode: z.number().int().nullable(),
  lastDurationMs: z.number().int().nullable(),
  nextRetryAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  history: z.array(DeliveryAttempt).meta({ description: "The attempts, oldest first" }),
}).meta({ id: "WebhookDelivery" });
export type DeliveryView = z.infer<typeof DeliveryView>;
export type DeliveryStatus = DeliveryView["status"];

/**
 * A stored delivery: its view. The body every attempt sends is the event's, stored once apart
 * (kv/webhooks/webhook_event_bodies.ts); records written before that carry it in `body`.
 */
export interface DeliveryRecord {
  id: string;
  webhookId: string;
  userId: string;
  eventId: string;
  eventType: string;
  body?: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextRetryAt: string | null;
  createdAt: string;
  updatedAt: string;
  history: StoredAttempt[];
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
    history: d.history.map(toAttemptView),
  };
}

/** A 2xx answer is success; anything else, or none, is a failure. */
export function succeeded(attempt: StoredAttempt): boolean {
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
  const skip = skipped(attempt);
  const retryIn = ok || skip ? null : retryDelay(policy, attempt.attempt);
  const status = ok ? "succeeded" : skip ? "skipped" : retryIn === null ? "failed" : "pending";
  const next: DeliveryRecord = {
    ...d,
    attemptCount: attempt.attempt,
    status,
    nextRetryAt: retryIn === null ? null : new Date(Date.parse(attempt.at) + retryIn).toISOString(),
    updatedAt: attempt.at,
    history: [...d.history, attempt].slice(-MAX_ATTEMPTS_KEPT),
  };
  return { next, retryIn };
}
