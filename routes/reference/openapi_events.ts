/**
 * The webhook events in the OpenAPI document (3.1 `webhooks`): for each event type the request
 * the service sends, its Standard Webhooks headers and the envelope with the resource as `data`.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { ApiKeyMetadata } from "../../domain/api_key.ts";
import { Application } from "../../domain/application.ts";
import { EVENT_TYPES, type EventType } from "../../domain/webhooks/event.ts";
import { EVENT_READERS } from "../../domain/webhooks/event_access.ts";
import { Review } from "../../domain/reviews/review.ts";
import { MessageCreated } from "../../domain/conversations/message.ts";
import { TaskMatched } from "../../domain/alerts/match.ts";
import { TaskCancelled } from "../../domain/cancellation/cancelled_event.ts";
import { TaskDetail } from "../../domain/tasks/task_view.ts";
import { WebhookView } from "../../domain/webhooks/webhook.ts";
import type { AppEnv } from "../router/env.ts";

/** The resource an event type is about: the part of its name before the dot. */
type EventResource = EventType extends `${infer R}.${string}` ? R : never;

/** Typed by the event types, so that a new kind of event cannot go undocumented. */
const DATA: Record<EventResource, { schema: z.ZodType; what: string }> = {
  task: { schema: TaskDetail, what: "the task as GET /tasks/{id} shows it" },
  api_key: { schema: ApiKeyMetadata, what: "the key's metadata (never its value)" },
  webhook: { schema: WebhookView, what: "the endpoint the test was sent to" },
  application: {
    schema: Application,
    what: "the application as the API shows it, sent to both parties (the task's creator and " +
      "the applicant)",
  },
  message: {
    schema: MessageCreated,
    what: "the message and its task's id and title, sent to its recipient only (never to its " +
      "sender)",
  },
  review: {
    schema: Review,
    what: "the review as its author sees it (visible: true), sent to both its reviewer and its " +
      "reviewee",
  },
};

/** Types whose data is not their resource's usual shape. */
const TYPE_DATA: Partial<Record<EventType, { schema: z.ZodType; what: string }>> = {
  "task.matched": {
    schema: TaskMatched,
    what: "the alert's id and the task as explore lists it (distanceKm on a geo alert)",
  },
  "task.cancelled": {
    schema: TaskCancelled,
    what: "the task as GET /tasks/{id} shows it and the reason given, sent to its creator and to " +
      "each helper it had accepted",
  },
};

const SUMMARIES: Record<EventType, string> = {
  "task.created": "One of the account's tasks was created",
  "task.updated": "One of the account's tasks was edited",
  "task.completed": "One of the account's tasks was completed",
  "task.deleted": "One of the account's tasks was deleted (data: its last state)",
  "task.cancelled":
    "A task was cancelled: one of the account's own, or one the account was an accepted helper on",
  "api_key.created": "An API key was created",
  "api_key.regenerated": "An API key was given a new value",
  "api_key.revoked": "An API key was revoked",
  "api_key.expiring": "An API key expires in 7 days, or in 1 day",
  "api_key.expired": "An API key has expired",
  "webhook.test": "Sent by POST /v1/webhooks/{id}/test",
  "application.created": "An application was made to one of the account's tasks, or by the account",
  "application.accepted": "An application the account is a party to was accepted",
  "application.declined":
    "An application the account is a party to was declined (also when its task was completed or deleted while it was pending)",
  "application.withdrawn":
    "An application the account is a party to was withdrawn (also by the applicant's account deletion)",
  "review.published":
    "A review the account wrote or received became visible: its counterpart reviewed back, or the 14-day window closed",
  "task.matched": "A task was published that one of the account's enabled alerts matches",
  "message.created": "The other party of one of the account's conversations sent a message",
};

const Headers = z.object({
  "webhook-id": z.string().openapi({
    description: "The event id (evt_<ulid>), the same on every retry: deduplicate by it",
  }),
  "webhook-timestamp": z.string().openapi({ description: "Unix seconds of this attempt" }),
  "webhook-signature": z.string().openapi({
    description: "Space-separated `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`, one per " +
      "signing secret (two for 24 hours after a rotation)",
  }),
});

/** Which endpoints hear a type: those whose URL and events were set by a caller who may read it. */
function hearers(type: EventType): string {
  const needs = EVENT_READERS[type];
  if (needs === null) return "Every endpoint selecting it hears it.";
  const who = needs === "session" ? "a session token" : `a session or an API key holding ${needs}`;
  return `Heard only by endpoints whose URL and events were last set with ${who} (a key still live).`;
}

/** Registers one OpenAPI webhook per event type. */
export function registerEventDocs(app: OpenAPIHono<AppEnv>) {
  for (const type of EVENT_TYPES) {
    const data = TYPE_DATA[type] ?? DATA[type.split(".")[0] as EventResource];
    const name = type.split(/[._]/).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
    const envelope = z.object({
      id: z.string().openapi({ example: "evt_01JD3YQ5G7N9J7M2X4W8T6V0KC" }),
      type: z.literal(type),
      createdAt: z.string(),
      data: data.schema,
    }).openapi(`${name}Event`, {
      description: `The body of a ${type} delivery; data: ${data.what}`,
    });
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      operationId: `event${name}`,
      // The receiver authenticates the request by its signature, not by a credential.
      security: [],
      tags: ["Webhooks"],
      summary: SUMMARIES[type],
      description: "Verify the signature (e.g. with the `standardwebhooks` package) before " +
        "trusting the body. Answer 2xx within 15 s; anything else is retried after about 5 s, " +
        `5 min, 30 min, 2 h, 5 h, 10 h and 10 h. ${hearers(type)}`,
      request: {
        headers: Headers,
        body: { required: true, content: { "application/json": { schema: envelope } } },
      },
      responses: {
        200: { description: "Any 2xx: received" },
      },
    });
  }
}
