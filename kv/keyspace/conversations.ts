/** Conversation keys: each application's state and messages, and each party's listing. */

/**
 * Conversations (kv/conversations/): one state entry per application, its messages under one
 * prefix keyed by their ULIDs (so a thread lists newest first by key), and per party a listing
 * entry keyed by the conversation's rank (`m<last message id>` or `a<application order key>`),
 * which moves with every message so that the listing reads latest first in one list.
 */
export const conversations = {
  state: (applicationId: string): Deno.KvKey => ["conversations", applicationId],
  message: (applicationId: string, messageId: string): Deno.KvKey => [
    "messages",
    applicationId,
    messageId,
  ],
  messagesPrefix: (applicationId: string): Deno.KvKey => ["messages", applicationId],
  /** A party's conversation, value: its listing entry (kv/conversations/entries.ts). */
  byUser: (userId: string, rank: string): Deno.KvKey => ["conversations_by_user", userId, rank],
  byUserPrefix: (userId: string): Deno.KvKey => ["conversations_by_user", userId],
};
