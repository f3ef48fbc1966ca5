/**
 * Webhook endpoints under /webhooks: create (the secret shown once), list, get, change, delete,
 * rotate the secret. Deliveries and the test event live in webhook_deliveries.ts.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { invalid, notFound } from "../../domain/errors.ts";
import { grantorFor } from "../../domain/webhooks/event_access.ts";
import {
  editedWebhook,
  removedWebhook,
  rotatedWebhook,
} from "../../domain/webhooks/webhook_changes.ts";
import type { SecurityEventType } from "../../domain/security_log.ts";
import {
  generateSecret,
  newWebhook,
  toWebhookView,
  WebhookCreate,
  WebhookPatch,
  WebhookView,
  WebhookWithSecret,
} from "../../domain/webhooks/webhook.ts";
import { checkTarget } from "../../domain/webhooks/webhook_target.ts";
import { resolveHost } from "../../io/webhooks/resolve_host.ts";
import {
  changeWebhook,
  createWebhook,
  getWebhook,
  listWebhooks,
} from "../../kv/webhooks/webhooks.ts";
import { principalOf } from "../http/authenticate.ts";
import {
  createdContent,
  defineRoute,
  jsonBody,
  jsonContent,
  Message,
  problems,
} from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { originOf } from "../http/request_origin.ts";

export const WebhookId = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" } }),
});

const TAGS = ["Webhooks"];

const createRouteDef = defineRoute({ scope: "webhooks:write" }, {
  method: "post",
  path: "/webhooks",
  tags: TAGS,
  summary: "Add an endpoint; its signing secret is in this response only",
  request: { body: jsonBody(WebhookCreate) },
  responses: {
    201: createdContent(WebhookWithSecret, "The new endpoint, with its secret shown once"),
    ...problems(400, 401, 403, 409, 413, 415, 429),
  },
});

const listRoute = defineRoute({ scope: "webhooks:read" }, {
  method: "get",
  path: "/webhooks",
  tags: TAGS,
  summary: "The account's endpoints (at most 10), oldest first",
  responses: { 200: jsonContent(z.array(WebhookView), "Endpoints"), ...problems(401, 403) },
});

const getRoute = defineRoute({ scope: "webhooks:read" }, {
  method: "get",
  path: "/webhooks/{id}",
  tags: TAGS,
  summary: "One endpoint",
  request: { params: WebhookId },
  responses: { 200: jsonContent(WebhookView, "The endpoint"), ...problems(401, 403, 404) },
});

const patchRoute = defineRoute({ scope: "webhooks:write" }, {
  method: "patch",
  path: "/webhooks/{id}",
  tags: TAGS,
  summary: "Change an endpoint's URL, events or description, or disable or enable it",
  request: { params: WebhookId, body: jsonBody(WebhookPatch) },
  responses: {
    200: jsonContent(WebhookView, "The endpoint as changed"),
    ...problems(400, 401, 403, 404, 413, 415),
  },
});

const deleteRoute = defineRoute({ scope: "webhooks:write" }, {
  method: "delete",
  path: "/webhooks/{id}",
  tags: TAGS,
  summary: "Delete an endpoint; its pending deliveries stop",
  request: { params: WebhookId },
  responses: { 200: jsonContent(Message, "Webhook deleted"), ...problems(401, 403, 404) },
});

const rotateRoute = defineRoute({ scope: "webhooks:write" }, {
  method: "post",
  path: "/webhooks/{id}/rotate-secret",
  tags: TAGS,
  summary: "Issue a new signing secret; the old one keeps signing beside it for 24 hours",
  request: { params: WebhookId },
  responses: {
    200: jsonContent(WebhookWithSecret, "The endpoint with its new secret, shown once"),
    ...problems(401, 403, 404),
  },
});

/** The endpoint's URL checked against the target rules (https, public addresses). */
async function checkedUrl(c: Context<AppEnv>, url: string): Promise<string> {
  const target = await checkTarget(url, {
    allowPrivate: c.get("deps").settings.WEBHOOK_ALLOW_PRIVATE,
    resolve: resolveHost,
  });
  if (target instanceof Error) throw invalid("url", target.message);
  return target.url.href;
}

/** The security log entry of an endpoint change. */
function logged(c: Context<AppEnv>, type: SecurityEventType, webhookId: string) {
  return { security: { type, origin: originOf(c), webhookId } };
}

export function registerWebhooks(api: OpenAPIHono<AppEnv>) {
  api.openapi(createRouteDef, async (c) => {
    const { kv, now } = c.get("deps");
    const input = c.req.valid("json");
    const grantedBy = grantorFor(principalOf(c), input.events);
    const url = await checkedUrl(c, input.url);
    const at = new Date(now()).toISOString();
    const secret = generateSecret();
    const hook = newWebhook({
      userId: principalOf(c).userId,
      url,
      events: input.events,
      description: input.description,
      secret,
      at,
      grantedBy,
    });
    await createWebhook(kv, hook, { now: now(), ...logged(c, "webhook.created", hook.id) });
    c.header("Location", `/api/v1/webhooks/${hook.id}`);
    return c.json({ ...toWebhookView(hook), secret }, 201);
  });

  api.openapi(listRoute, async (c) => {
    const hooks = await listWebhooks(c.get("deps").kv, principalOf(c).userId);
    return c.json(hooks.map(toWebhookView), 200);
  });

  api.openapi(getRoute, async (c) => {
    const hook = await getWebhook(c.get("deps").kv, principalOf(c).userId, c.req.valid("param").id);
    if (!hook) throw notFound("Webhook");
    return c.json(toWebhookView(hook), 200);
  });

  api.openapi(patchRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const patch = c.req.valid("json");
    const { id } = c.req.valid("param");
    const url = patch.url === undefined ? undefined : await checkedUrl(c, patch.url);
    const at = new Date(now()).toISOString();
    const updated = await changeWebhook(kv, {
      userId: principalOf(c).userId,
      webhookId: id,
      now: now(),
      change: editedWebhook({ patch, url, caller: principalOf(c), at }),
      effects: logged(c, "webhook.updated", id),
    });
    if (!updated) throw notFound("Webhook");
    return c.json(toWebhookView(updated), 200);
  });

  api.openapi(deleteRoute, async (c) => {
    const { id } = c.req.valid("param");
    const deleted = await changeWebhook(c.get("deps").kv, {
      userId: principalOf(c).userId,
      webhookId: id,
      now: c.get("deps").now(),
      change: removedWebhook(),
      effects: logged(c, "webhook.deleted", id),
    });
    if (!deleted) throw notFound("Webhook");
    return c.json({ message: "Webhook deleted" }, 200);
  });

  api.openapi(rotateRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const { id } = c.req.valid("param");
    const secret = generateSecret();
    const rotated = await changeWebhook(kv, {
      userId: principalOf(c).userId,
      webhookId: id,
      now: now(),
      change: rotatedWebhook(secret, now()),
      effects: logged(c, "webhook.secret_rotated", id),
    });
    if (!rotated) throw notFound("Webhook");
    return c.json({ ...toWebhookView(rotated), secret }, 200);
  });
}
