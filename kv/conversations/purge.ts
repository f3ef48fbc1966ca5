/**
 * The conversations' part of an account's purge: each message the account sent loses its body and
 * sender, and each conversation's state marks the side purged (its listing entry goes, its last
 * message is redacted where it was the account's), so the counterpart keeps the conversation, its
 * order, its counts and its own messages.
 */
import {
  type ConversationEntry,
  type ConversationState,
  rankOf,
  sideOf,
} from "../../domain/conversations/conversation.ts";
import type { MessageRecord } from "../../domain/conversations/message.ts";
import { atomically, commit } from "../commit.ts";
import { conversations } from "../keyspace.ts";
import { writeState } from "./entries.ts";

/** Messages redacted per atomic. */
const REDACT_BATCH = 100;

const CONFLICT = "The conversation changed too often to redact it; try again";

/**
 * Redacts `userId`'s messages in one conversation. No check is needed on them: a message is
 * written once by its post, and the purged account posts no more (its credentials are gone).
 */
async function redactMessages(kv: Deno.Kv, applicationId: string, userId: string) {
  let op = kv.atomic();
  let pending = 0;
  const prefix = conversations.messagesPrefix(applicationId);
  for await (const entry of kv.list<MessageRecord>({ prefix })) {
    if (entry.value.senderId !== userId) continue;
    op.set(entry.key, { ...entry.value, senderId: null, body: null });
    if (++pending === REDACT_BATCH) {
      await commit(op);
      op = kv.atomic();
      pending = 0;
    }
  }
  if (pending > 0) await commit(op);
}

/** Marks `userId`'s side of the conversation purged, and its last message redacted if theirs. */
function markPurged(kv: Deno.Kv, entry: Deno.KvEntry<ConversationEntry>, userId: string) {
  const stateKey = conversations.state(entry.value.applicationId);
  return atomically(CONFLICT, async () => {
    const stateEntry = await kv.get<ConversationState>(stateKey);
    const state = stateEntry.value;
    const op = kv.atomic().check(stateEntry).delete(entry.key);
    if (!state) return { value: null, op };
    const side = sideOf(state, userId);
    // The entry as listed, and where the state places it, should a move have raced the listing.
    const rank = rankOf(state);
    if (entry.key.at(-1) !== rank) op.delete(conversations.byUser(userId, rank));
    const last = state.lastMessage;
    const after: ConversationState = {
      ...state,
      purged: state.purged.includes(side) ? state.purged : [...state.purged, side],
      lastMessage: last && last.senderId === userId
        ? { ...last, senderId: null, body: null }
        : last,
    };
    writeState(op, state, after);
    return { value: null, op };
  });
}

/**
 * Redacts the conversations of a deleted account, up to `limit` of them; fewer than `limit` means
 * none is left (each one done leaves the account's listing).
 */
export async function redactUserConversations(
  kv: Deno.Kv,
  purge: { userId: string; limit: number },
): Promise<number> {
  const { userId, limit } = purge;
  let done = 0;
  const prefix = conversations.byUserPrefix(userId);
  for await (const entry of kv.list<ConversationEntry>({ prefix }, { limit })) {
    await redactMessages(kv, entry.value.applicationId, userId);
    await markPurged(kv, entry, userId);
    done++;
  }
  return done;
}
