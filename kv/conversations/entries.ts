/**
 * Writing a conversation's state with its parties' listing entries in the same atomic: an entry
 * moves when the conversation's rank does (a new message), and is rewritten when what it shows
 * changed; a purged side's entry is never written again.
 */
import {
  type ConversationEntry,
  type ConversationState,
  entryFor,
  openState,
  partyOn,
  rankOf,
} from "../../domain/conversations/conversation.ts";
import type { Side } from "../../domain/conversations/message.ts";
import type { ApplicationRecord } from "../../domain/application.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { conversations } from "../keyspace.ts";

const SIDES: readonly Side[] = ["creator", "applicant"];

/** Adds to `op` the move from `before` (null: nothing stored yet) to `after`. */
export function writeState(
  op: Deno.AtomicOperation,
  before: ConversationState | null,
  after: ConversationState,
) {
  op.set(conversations.state(after.applicationId), after);
  const rank = rankOf(after);
  const oldRank = before ? rankOf(before) : rank;
  for (const side of SIDES) {
    const userId = partyOn(after, side);
    if (oldRank !== rank) op.delete(conversations.byUser(userId, oldRank));
    if (after.purged.includes(side)) continue;
    const entry: ConversationEntry = entryFor(after, side);
    if (before && oldRank === rank && sameEntry(entryFor(before, side), entry)) continue;
    op.set(conversations.byUser(userId, rank), entry);
  }
}

function sameEntry(a: ConversationEntry, b: ConversationEntry): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Adds to `op` (the application's creation) its conversation, empty, in both listings. */
export function openConversation(
  op: Deno.AtomicOperation,
  app: ApplicationRecord,
  task: TaskRecord,
) {
  writeState(op, null, openState(app, task));
}
