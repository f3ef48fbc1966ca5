/**
 * Background work through Deno KV queues: the messages the service enqueues and the one
 * listener that dispatches them. Handlers are idempotent, since a message may be delivered again.
 */
import type { WebhookEvent } from "../domain/event.ts";
import type { DeliveryPolicy } from "../domain/webhook_schedule.ts";

/** Every message the service puts on its queue. */
export type QueueMessage =
  | { kind: "purge_user"; userId: string }
  /** An event to fan out to the account's endpoints that select it. */
  | { kind: "webhook_event"; userId: string; event: WebhookEvent }
  /** Attempt `attempt` (from 1) of one event's delivery to one endpoint. */
  | {
    kind: "webhook_delivery";
    userId: string;
    webhookId: string;
    eventUlid: string;
    attempt: number;
  }
  /** Raises a key's expiry notice when due, or waits again (a queue delay is at most 30 days). */
  | { kind: "api_key_notice"; userId: string; keyId: string; notice: KeyNotice; dueAt: number }
  /** Declines a closed task's pending applications, from the index entry `after` on. */
  | { kind: "task_declines"; taskId: string; after?: string };

export type KeyNotice = "expiring_7d" | "expiring_1d" | "expired";

/**
 * When a handler throws (storage failing past its own retries), the queue runs the message again
 * after these delays, the most Deno KV allows (5 intervals of at most an hour), instead of its
 * default few seconds: a delivery's next attempt should outlive a short storage outage.
 */
export const HANDLER_RETRIES = [1_000, 5_000, 30_000, 120_000, 600_000];

const isString = (v: unknown) => typeof v === "string";
const isNumber = (v: unknown) => typeof v === "number" && Number.isFinite(v);

const SHAPES: Record<QueueMessage["kind"], (m: Record<string, unknown>) => boolean> = {
  purge_user: (m) => isString(m.userId),
  webhook_event: (m) =>
    isString(m.userId) && typeof m.event === "object" && m.event !== null &&
    isString((m.event as Record<string, unknown>).id),
  webhook_delivery: (m) =>
    isString(m.userId) && isString(m.webhookId) && isString(m.eventUlid) && isNumber(m.attempt),
  api_key_notice: (m) =>
    isString(m.userId) && isString(m.keyId) && isString(m.notice) && isNumber(m.dueAt),
  task_declines: (m) => isString(m.taskId) && (m.after === undefined || isString(m.after)),
};

/** Narrows what the queue hands back to a known message. */
export function isQueueMessage(value: unknown): value is QueueMessage {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  const shape = SHAPES[message.kind as QueueMessage["kind"]];
  return shape !== undefined && shape(message);
}

/** What a handler receives besides the message: the store, the clock, delivery rules. */
export interface QueueContext {
  kv: Deno.Kv;
  now: () => number;
  webhooks: DeliveryPolicy;
}

export type QueueHandlers = {
  [K in QueueMessage["kind"]]: (
    ctx: QueueContext,
    message: Extract<QueueMessage, { kind: K }>,
  ) => Promise<void>;
};

/** Builds the `listenQueue` callback; unknown messages are dropped rather than retried. */
export function dispatcher(ctx: QueueContext, handlers: QueueHandlers) {
  return async (value: unknown) => {
    if (!isQueueMessage(value)) return;
    const handle = handlers[value.kind] as (ctx: QueueContext, m: QueueMessage) => Promise<void>;
    await handle(ctx, value);
  };
}
