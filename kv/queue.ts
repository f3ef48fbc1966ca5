/**
 * Background work through Deno KV queues: the messages the service enqueues and the one
 * listener that dispatches them. Handlers are idempotent, since a message may be delivered again.
 */

/** Every message the service puts on its queue. */
export type QueueMessage = { kind: "purge_user"; userId: string };

/** Narrows what the queue hands back to a known message. */
export function isQueueMessage(value: unknown): value is QueueMessage {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  return message.kind === "purge_user" && typeof message.userId === "string";
}

/** What a handler receives besides the message: the store and the clock. */
export interface QueueContext {
  kv: Deno.Kv;
  now: () => number;
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
    await handlers[value.kind](ctx, value);
  };
}
