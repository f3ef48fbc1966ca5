/** Webhook keys: endpoints, subscriptions, deliveries and shared event bodies. */

export const webhooks = {
  record: (userId: string, webhookId: string): Deno.KvKey => ["webhooks", userId, webhookId],
  byUserPrefix: (userId: string): Deno.KvKey => ["webhooks", userId],
  /**
   * The union of the event types its enabled endpoints select. Rewritten by every endpoint change
   * (serializing creation: the 10-endpoint limit) and checked by every atomic that may raise an
   * event, so an endpoint change concurrent with the write makes the write read it again.
   */
  subscription: (userId: string): Deno.KvKey => ["webhook_subscriptions", userId],
  subscriptionsRoot: (): Deno.KvKey => ["webhook_subscriptions"],
  /**
   * A shard of the accounts whose subscription selects `task.matched` (kv/webhooks/listeners.ts),
   * rewritten under a check in the same atomic as a subscription that starts or stops selecting it:
   * a task's matching reads a few shards, not one subscription per owner matched.
   */
  matchedListeners: (shard: number): Deno.KvKey => ["webhook_listeners", "task.matched", shard],
  /** Present once the shards hold every listener (built at start-up in a store written before). */
  matchedListenersBuilt: (): Deno.KvKey => ["meta", "webhook_listeners_built"],
  /** One event's delivery to one endpoint, newest first by the event's ULID. */
  delivery: (webhookId: string, eventUlid: string): Deno.KvKey => [
    "webhook_deliveries",
    webhookId,
    eventUlid,
  ],
  deliveriesPrefix: (webhookId: string): Deno.KvKey => ["webhook_deliveries", webhookId],
  /** A delivery's public id to its event ULID; value: the ULID. */
  deliveryById: (webhookId: string, deliveryId: string): Deno.KvKey => [
    "webhook_deliveries_by_id",
    webhookId,
    deliveryId,
  ],
  /** An event's body as UTF-8 bytes, split in values under 64 KiB; shared by its deliveries. */
  eventBody: (ulid: string, part: number): Deno.KvKey => ["webhook_event_bodies", ulid, part],
  eventBodyPrefix: (eventUlid: string): Deno.KvKey => ["webhook_event_bodies", eventUlid],
  /**
   * Set (expiring with the window) when an account's `task.matched` delivery budget bites, so the
   * security log says so once a window, not once per delayed event.
   */
  matchedBudgetNote: (userId: string): Deno.KvKey => ["webhook_matched_budget_notes", userId],
};
