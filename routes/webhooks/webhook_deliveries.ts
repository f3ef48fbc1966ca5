/**
 * An endpoint's deliveries: the test event, the recent deliveries with their attempts (cursor
 * paging, newest event first), and sending one again.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { DeliveryView, toDeliveryView } from "../../domain/webhooks/delivery.ts";
import { AppError, notFound } from "../../domain/errors.ts";
import { newEvent } from "../../domain/webhooks/event.ts";
import { toWebhookView } from "../../domain/webhooks/webhook.ts";
import { cursorPosition, encodeCursor } from "../../kv/cursor.ts";
import {
  listDeliveries,
  resendDelivery,
  startDelivery,
} from "../../kv/webhooks/webhook_deliveries.ts";
import { getWebhook } from "../../kv/webhooks/webhooks.ts";
import { principalOf } from "../http/authenticate.ts";
import { defineRoute, jsonContent, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";
import { WebhookId } from "./webhooks.ts";

const TAGS = ["Webhooks"];

const DeliveryRef = WebhookId.extend({
  deliveryId: z.uuid().openapi({ param: { name: "deliveryId", in: "path" } }),
});

const testRoute = defineRoute({ scope: "webhooks:write" }, {
  method: "post",
  path: "/webhooks/{id}/test",
  tags: TAGS,
  summary: "Send a webhook.test event to this endpoint (even when disabled)",
  request: { params: WebhookId },
  responses: {
    202: jsonContent(DeliveryView, "The delivery, queued"),
    ...problems(401, 403, 404),
  },
});

const listRoute = defineRoute({ scope: "webhooks:read" }, {
  method: "get",
  path: "/webhooks/{id}/deliveries",
  tags: TAGS,
  summary: "The endpoint's recent deliveries (30 days), newest event first, with their attempts",
  request: { params: WebhookId, query: CursorQuery },
  responses: {
    200: cursorPage(DeliveryView, "One page of deliveries"),
    ...problems(400, 401, 403, 404),
  },
});

const resendRoute = defineRoute({ scope: "webhooks:write" }, {
  method: "post",
  path: "/webhooks/{id}/deliveries/{deliveryId}/resend",
  tags: TAGS,
  summary: "Send a delivery again now, with the same webhook-id, as its next attempt",
  request: { params: DeliveryRef },
  responses: {
    202: jsonContent(DeliveryView, "The delivery, queued again"),
    ...problems(401, 403, 404),
  },
});

export function registerWebhookDeliveries(api: OpenAPIHono<AppEnv>) {
  api.openapi(testRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const hook = await getWebhook(kv, principalOf(c).userId, c.req.valid("param").id);
    if (!hook) throw notFound("Webhook");
    const event = newEvent("webhook.test", toWebhookView(hook), now());
    const delivery = await startDelivery(kv, { hook, event, now: now() });
    if (!delivery) throw new AppError("CONFLICT", "The test event could not be queued; try again");
    return c.json(toDeliveryView(delivery), 202);
  });

  api.openapi(listRoute, async (c) => {
    const { kv } = c.get("deps");
    const userId = principalOf(c).userId;
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    if (!await getWebhook(kv, userId, id)) throw notFound("Webhook");
    const scope = { listing: "webhook_deliveries", userId, webhookId: id };
    const before = await cursorPosition(query.cursor, scope);
    const page = await listDeliveries(kv, id, { limit: query.limit, before: before ?? undefined });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.deliveries.map(toDeliveryView), 200);
  });

  api.openapi(resendRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const { id, deliveryId } = c.req.valid("param");
    if (!await getWebhook(kv, principalOf(c).userId, id)) throw notFound("Webhook");
    const delivery = await resendDelivery(kv, { webhookId: id, deliveryId, now: now() });
    if (!delivery) throw notFound("Delivery");
    return c.json(toDeliveryView(delivery), 202);
  });
}
