/**
 * Live events (docs/contract.md section 19, docs/live-events.md): GET /events/stream, the
 * account's events as server-sent events, and POST /events/stream-tickets, the one-use ticket a
 * browser's EventSource opens it with.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError } from "../../domain/errors.ts";
import { resumeUlid } from "../../domain/live/live_rules.ts";
import { judgeCredential } from "../../kv/live/stream_credential.ts";
import { placeOf } from "../../kv/live/event_log.ts";
import { admitStream } from "../../kv/live/stream_leases.ts";
import { defineRoute, jsonContent, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { LiveStream } from "./live_stream.ts";
import { requestCredential, ticketEntry } from "./stream_credentials.ts";
import { LIVE_EVENTS_DESCRIPTION, StreamQuery, StreamTicket } from "./events_schemas.ts";
import { issueTicket } from "../../kv/live/tickets.ts";
import { principalOf } from "../http/authenticate.ts";

const streamRoute = defineRoute("public", {
  method: "get",
  path: "/events/stream",
  tags: ["Live events"],
  summary: "The account's events as server-sent events (resumable by Last-Event-ID)",
  description: LIVE_EVENTS_DESCRIPTION,
  request: {
    query: StreamQuery,
    headers: z.object({
      "Last-Event-ID": z.string().optional().openapi({
        description: "The id of the last event received: the stream resumes after it",
      }),
    }),
  },
  responses: {
    200: {
      description: "The stream: `id`, `event` and `data` (the webhook body) per event, a " +
        "comment at least every 15 seconds; it ends after an hour",
      headers: z.object({
        "Cache-Control": z.string().openapi({
          description:
            "`no-store, no-transform`: no cache keeps it, no proxy compresses or holds it",
        }),
        "X-Accel-Buffering": z.string().openapi({
          description: "`no`: proxies that buffer answers (nginx) pass each event on at once",
        }),
      }),
      content: {
        "text/event-stream": {
          schema: z.string().openapi({
            example: 'id: evt_01JD3YQ5G7N9J7M2X4W8T6V0KC\nevent: task.created\ndata: {"id":' +
              '"evt_01JD3YQ5G7N9J7M2X4W8T6V0KC","type":"task.created",...}\n\n',
          }),
        },
      },
    },
    ...problems(400, 401, 409, 429),
  },
});

const ticketRoute = defineRoute("public", {
  method: "post",
  path: "/events/stream-tickets",
  tags: ["Live events"],
  summary: "A one-use ticket to open the stream from a browser (EventSource sends no headers)",
  description: "Any credential (an API key of any scope, or a session). The ticket is good for " +
    "one `GET /events/stream?ticket=` within 60 seconds and carries the credential's rights; " +
    "a used or expired ticket gets 401 `TICKET_INVALID`. Put the ticket, never the credential, " +
    "in the URL.",
  responses: {
    201: jsonContent(StreamTicket, "The ticket and when it expires"),
    ...problems(401),
  },
});

export function registerEvents(api: OpenAPIHono<AppEnv>) {
  api.openapi(ticketRoute, async (c) => {
    principalOf(c); // any credential, but one
    const deps = c.get("deps");
    const credential = await requestCredential(c);
    const issued = await issueTicket(deps.kv, credential, deps.now());
    return c.json(
      { ticket: issued.ticket, expiresAt: new Date(issued.expiresAt).toISOString() },
      201,
    );
  });

  api.openapi(streamRoute, async (c) => {
    const deps = c.get("deps");
    const hub = deps.live;
    if (hub.closed) throw new AppError("SERVICE_UNAVAILABLE", "The service is shutting down");
    const query = c.req.valid("query");
    const ticket = query.ticket === undefined
      ? null
      : await ticketEntry(deps.kv, query.ticket, deps.now());
    const credential = ticket ? ticket.value.credential : await requestCredential(c);
    const judged = await judgeCredential(deps.kv, credential, deps.now());
    if (!judged) {
      throw ticket
        ? new AppError("TICKET_INVALID", "The credential that took this ticket no longer works")
        : new AppError("API_KEY_INVALID", "The API key is unknown or revoked");
    }
    const lastEventId = c.req.header("Last-Event-ID") ?? query.lastEventId;
    const { userId } = credential;
    const feed = hub.hold(userId);
    try {
      let cursor: number | null = null;
      if (lastEventId !== undefined && lastEventId !== "") {
        const ulid = resumeUlid(lastEventId.trim());
        // Placed first: an id a webhook delivered may still be pending.
        if (ulid) await feed.sync();
        cursor = ulid ? await placeOf(deps.kv, userId, ulid) : null;
        if (cursor === null) {
          throw new AppError(
            "EVENT_ID_EXPIRED",
            "The event log holds no such event (kept 24 hours): open the stream without " +
              "Last-Event-ID and read anything older through the API",
          );
        }
      }
      const lease = await admitStream(deps.kv, { userId, now: deps.now, ticket: ticket?.key });
      const requestId = c.get("requestId");
      const stream = new LiveStream({
        hub,
        kv: hub.kv,
        credential,
        judged,
        lease,
        cursor,
        now: deps.now,
        onEnd: (reason, sent) => deps.log.debug("live stream ended", { requestId, reason, sent }),
      });
      hub.add(stream);
      await feed.join(stream, (seen) => stream.joined(seen));
      return new Response(stream.body, {
        status: 200,
        headers: {
          "Content-Type": "text/event-stream; charset=utf-8",
          "Cache-Control": "no-store, no-transform",
          "X-Accel-Buffering": "no",
        },
      }) as unknown as ReturnType<typeof c.json>;
    } finally {
      hub.release(userId);
    }
  });
}
