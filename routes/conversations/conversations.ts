/**
 * Conversations (docs/contract.md section 18): messages between a task's creator and each
 * applicant, the caller's conversations, and the read marker.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  Conversation,
  Message,
  MessageCreate,
  ReadMarker,
  ReadState,
  toMessage,
} from "../../domain/conversations/message.ts";
import type { ConversationEntry } from "../../domain/conversations/conversation.ts";
import { cursorPosition, decodeCursor, encodeCursor } from "../../kv/cursor.ts";
import { isRank, listConversations, listMessages } from "../../kv/conversations/listings.ts";
import { postMessage } from "../../kv/conversations/post.ts";
import { markRead } from "../../kv/conversations/read_marker.ts";
import type { UserCache } from "../../kv/users/user_cache.ts";
import { principalOf } from "../http/authenticate.ts";
import { defineRoute, jsonBody, jsonContent, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";
import { messagePolicy, rateLimited } from "../http/rate_limit.ts";

const IdParam = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const PARTIES_ONLY = "Only the task's creator and the applicant may use the application's " +
  "conversation; anyone else gets 404.";

const postRoute = defineRoute({ scope: "messages:write" }, {
  method: "post",
  path: "/applications/{id}/messages",
  tags: ["Conversations"],
  summary: "Send a message in an application's conversation",
  description: `${PARTIES_ONLY} A closed conversation (application declined or withdrawn, task ` +
    "deleted or cancelled, or 14 days past the task's completion) is 409 CONVERSATION_CLOSED. " +
    "A sender may post 20 messages a minute across conversations; past that 429 RATE_LIMITED " +
    "with Retry-After. The recipient's webhooks get message.created.",
  request: { params: IdParam, body: jsonBody(MessageCreate) },
  responses: {
    201: jsonContent(Message, "The message as stored"),
    ...problems(400, 401, 403, 404, 409, 413, 415, 429),
  },
});

const threadRoute = defineRoute({ scope: "messages:read" }, {
  method: "get",
  path: "/applications/{id}/messages",
  tags: ["Conversations"],
  summary: "An application's messages, newest first (cursor paging)",
  description: `${PARTIES_ONLY} Every message appears exactly once across pages, even while ` +
    "new ones arrive; a closed conversation stays readable.",
  request: { params: IdParam, query: CursorQuery },
  responses: {
    200: cursorPage(Message, "One page of the conversation's messages"),
    ...problems(400, 401, 403, 404, 429),
  },
});

const conversationsRoute = defineRoute({ scope: "messages:read" }, {
  method: "get",
  path: "/conversations",
  tags: ["Conversations"],
  summary: "The caller's conversations, latest message first (cursor paging)",
  description: "One per application the caller made or received. Conversations with messages " +
    "come first, the latest message first; those without follow, the newest application first. " +
    "`unread` counts the counterpart's messages after the caller's read marker.",
  request: { query: CursorQuery },
  responses: {
    200: cursorPage(Conversation, "One page of the caller's conversations"),
    ...problems(400, 401, 403, 429),
  },
});

const readRoute = defineRoute({ scope: "messages:read" }, {
  method: "put",
  path: "/applications/{id}/read",
  tags: ["Conversations"],
  summary: "Move the caller's read marker forward",
  description: `${PARTIES_ONLY} The marker moves to \`upTo\` (a message of this conversation, ` +
    "else 400) and never back: an earlier message leaves it where it is. Answers the " +
    "counterpart's messages still unread.",
  request: { params: IdParam, body: jsonBody(ReadMarker) },
  responses: {
    200: jsonContent(ReadState, "The messages still unread"),
    ...problems(400, 401, 403, 404, 413, 415, 429),
  },
});

/** A listing entry as the API shows it, its counterpart's first name read live. */
async function toConversation(entry: ConversationEntry, users: UserCache): Promise<Conversation> {
  const { counterpartId, ...rest } = entry;
  const user = counterpartId ? await users.find(counterpartId) : null;
  return {
    applicationId: rest.applicationId,
    taskId: rest.taskId,
    taskTitle: rest.taskTitle,
    applicationStatus: rest.applicationStatus,
    counterpart: user ? { id: user.id, firstName: user.firstName } : { id: null, firstName: null },
    lastMessage: rest.lastMessage,
    unread: rest.unread,
  };
}

export function registerConversations(api: OpenAPIHono<AppEnv>) {
  api.openapi(postRoute, async (c) => {
    const { kv, now, settings } = c.get("deps");
    const outcome = await postMessage(kv, {
      applicationId: c.req.valid("param").id,
      senderId: principalOf(c).userId,
      body: c.req.valid("json").body,
      now: now(),
      policy: messagePolicy(settings),
    });
    if ("limited" in outcome) {
      throw rateLimited(outcome.limited, `At most ${outcome.limited.limit} messages per minute`);
    }
    const message = toMessage(outcome.message);
    return c.json(message, 201);
  });

  api.openapi(threadRoute, async (c) => {
    const { kv } = c.get("deps");
    const applicationId = c.req.valid("param").id;
    const { limit, cursor } = c.req.valid("query");
    const scope = { listing: "messages", applicationId };
    const before = await cursorPosition(cursor, scope);
    const page = await listMessages(kv, {
      applicationId,
      userId: principalOf(c).userId,
      limit,
      before: before ?? undefined,
    });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.entries.map((e) => toMessage(e.value)), 200);
  });

  api.openapi(conversationsRoute, async (c) => {
    const { kv, userCache } = c.get("deps");
    const userId = principalOf(c).userId;
    const { limit, cursor } = c.req.valid("query");
    const scope = { listing: "conversations", userId };
    const before = cursor ? await decodeCursor(cursor, scope, isRank) : undefined;
    const page = await listConversations(kv, { userId, limit, before });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    const items = await Promise.all(page.entries.map((e) => toConversation(e.value, userCache)));
    return c.json(items, 200);
  });

  api.openapi(readRoute, async (c) => {
    const { kv } = c.get("deps");
    const unread = await markRead(kv, {
      applicationId: c.req.valid("param").id,
      userId: principalOf(c).userId,
      upTo: c.req.valid("json").upTo,
    });
    return c.json({ unread }, 200);
  });
}
