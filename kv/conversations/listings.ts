/**
 * The two conversation listings, each one list of one prefix: a thread's messages newest first
 * (their keys are their ULIDs, and a new message always sorts after every stored one, so pages
 * never repeat or skip one), and a party's conversations by rank (latest message first, then the
 * conversations without messages, newest application first).
 */
import type { ConversationEntry } from "../../domain/conversations/conversation.ts";
import { sideOf } from "../../domain/conversations/conversation.ts";
import type { MessageRecord } from "../../domain/conversations/message.ts";
import type { ApplicationRecord } from "../../domain/application.ts";
import { type IndexPage, readNewestFirst } from "../cursor.ts";
import { applications, conversations } from "../keyspace.ts";
import { knownParties, partiesFrom } from "./parties.ts";

/**
 * One page of a conversation's messages for `userId`, one of its parties (404 for anyone else).
 * The application is read with the page, unless its parties are known.
 */
export async function listMessages(
  kv: Deno.Kv,
  page: { applicationId: string; userId: string; limit: number; before?: string },
): Promise<IndexPage<MessageRecord>> {
  const { applicationId, userId, limit, before } = page;
  const known = knownParties(applicationId);
  const [app, read] = await Promise.all([
    known ? null : kv.get<ApplicationRecord>(applications.record(applicationId)),
    readNewestFirst<MessageRecord>(kv, {
      prefix: conversations.messagesPrefix(applicationId),
      limit,
      before,
    }),
  ]);
  sideOf(known ?? partiesFrom(app?.value ?? null), userId);
  return read;
}

/** A listing position: a conversation's rank (kv/keyspace/conversations.ts). */
export function isRank(position: string): boolean {
  return /^[am][0-9A-HJKMNP-TV-Z]{26}$/.test(position);
}

/** One page of `userId`'s conversations, in the listing's order. */
export async function listConversations(
  kv: Deno.Kv,
  page: { userId: string; limit: number; before?: string },
): Promise<IndexPage<ConversationEntry>> {
  return await readNewestFirst<ConversationEntry>(kv, {
    prefix: conversations.byUserPrefix(page.userId),
    limit: page.limit,
    before: page.before,
  });
}
