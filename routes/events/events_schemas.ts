/** The shapes of the live event endpoints, and the stream's description in the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../../domain/webhooks/event.ts";
import { EVENT_READERS } from "../../domain/webhooks/event_access.ts";

/** Every type a stream may carry (all but `webhook.test`, sent to one endpoint), with its need. */
const STREAMED = EVENT_TYPES.filter((type) => type !== "webhook.test").map((type) => {
  const needs = EVENT_READERS[type];
  return `\`${type}\`${needs === "session" ? " (session only)" : needs ? ` (${needs})` : ""}`;
}).join(", ");

export const StreamQuery = z.strictObject({
  lastEventId: z.string().max(100).optional().openapi({
    description: "As the Last-Event-ID header (which wins when both are sent): for a new " +
      "EventSource, which sends the header only on its own reconnections",
  }),
  ticket: z.string().max(100).optional().openapi({
    description: "A ticket from POST /events/stream-tickets, instead of a credential header",
  }),
});

export const StreamTicket = z.object({
  ticket: z.string().openapi({ example: "sst_3f1c..." }),
  expiresAt: z.string().openapi({ format: "date-time" }),
}).openapi("StreamTicket");

export const LIVE_EVENTS_DESCRIPTION =
  "The events the account receives by webhook (the same types and body; the same rights as a " +
  "webhook created by the credential: see the webhooks document's event types), from the " +
  "moment the stream opens, each as `id: <event id>`, `event: <type>`, `data: <body>`. " +
  "Credential: any API key or session in the headers, or `?ticket=`. `Last-Event-ID` (or " +
  "`?lastEventId=`) resumes after that event, in order and each once, from a log kept 24 hours; " +
  "an id the log does not hold gets 409 `EVENT_ID_EXPIRED`. At most 5 open streams per account " +
  "(429 `STREAM_LIMIT`). A stream ends after an hour, at once when its credential is revoked, " +
  "expires or changes, and when its client leaves more than 1 MiB unread: reconnect with the " +
  "last id. Events reach every open stream within a second of their commit. Event types, with " +
  `what a key needs to hear each: ${STREAMED}; each \`data\` is the body of the same type under ` +
  "this document's `webhooks` (`TaskCreatedEvent`, ...).";
