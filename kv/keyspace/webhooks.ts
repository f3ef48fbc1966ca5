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
};
