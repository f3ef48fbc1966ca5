/**
 * What a background job is: its payload (one kind per use), the record stored under its due
 * time, and the handler contract. Handlers are idempotent: a job runs at least once.
 */
import type { DeliveryPolicy } from "../../domain/webhooks/webhook_schedule.ts";
import type { WebhookEvent } from "../../domain/webhooks/event.ts";

export type KeyNotice = "expiring_7d" | "expiring_1d" | "expired";

/** Every kind of job the service writes. */
export type JobPayload =
  | { kind: "purge_user"; userId: string }
  /**
   * An event to fan out to the account's endpoints that select it; its body is stored apart
   * (kv/webhooks/webhook_event_bodies.ts). `event` is set only by messages an older version queued.
   */
  | {
    kind: "webhook_event";
    userId: string;
    eventId: string;
    eventType: WebhookEvent["type"];
    /** The body could not be stored (too large): the deliveries are recorded as failed. */
    unstored?: string;
  }
  /** Attempt `attempt` (from 1) of one event's delivery to one endpoint. */
  | {
    kind: "webhook_delivery";
    userId: string;
    webhookId: string;
    eventUlid: string;
    attempt: number;
  }
  /** Raises a key's expiry notice at `dueAt`. */
  | { kind: "api_key_notice"; userId: string; keyId: string; notice: KeyNotice; dueAt: number }
  /** Declines a closed task's pending applications, from the index entry `after` on. */
  | { kind: "task_declines"; taskId: string; after?: string }
  /** Closes a completed task's review window and shows its hidden reviews, from `after` on. */
  | { kind: "review_window"; taskId: string; after?: string }
  /** Raises `review.published` for both parties of a review that became visible. */
  | { kind: "review_published"; taskId: string; reviewerId: string; revieweeId: string }
  /** Matches a newly published task against the alerts (kv/alerts/matching.ts). */
  | { kind: "alert_match"; taskId: string }
  /** Deletes a deleted alert's matches. */
  | { kind: "alert_forget"; alertId: string }
  /** Rewrites an application's conversation entries after its status (or its task's title) changed. */
  | { kind: "conversation_refresh"; applicationId: string }
  /** Refreshes the conversations of a task whose title changed, from the index entry `after` on. */
  | { kind: "conversation_titles"; taskId: string; after?: string };

export type JobKind = JobPayload["kind"];

/** A job as stored under `jobs.entry(due, id)`. */
export interface JobRecord {
  id: string;
  payload: JobPayload;
  /** When it was scheduled to run (0: at once). */
  scheduledAt: number;
  /** Runs that ended in an error, for the backoff of the next one. */
  failures: number;
  /** The runner holding it and until when; the job's key is then this time. */
  lease?: { owner: string; until: number };
  lastError?: string;
}

/** What a handler receives besides the payload: the store, the clock, delivery rules. */
export interface JobContext {
  kv: Deno.Kv;
  now: () => number;
  webhooks: DeliveryPolicy;
}

/** A handler's answer: nothing (done, the job is deleted) or run again at `at`, maybe changed. */
export type JobOutcome = void | { again: { at: number; payload?: JobPayload } };

export type JobHandlers = {
  [K in JobKind]: (
    ctx: JobContext,
    payload: Extract<JobPayload, { kind: K }>,
  ) => Promise<JobOutcome>;
};
