/**
 * The read marker: a party marks the conversation read up to a message, never back. The count it
 * keeps is the counterpart's messages up to that message, which the message itself records, so
 * `unread` is exact however many posts and marks race it: each of them checks the state entry.
 */
import type { ApplicationRecord } from "../../domain/application.ts";
import {
  type ConversationState,
  sideOf,
  unreadOf,
} from "../../domain/conversations/conversation.ts";
import { type MessageRecord, otherSide } from "../../domain/conversations/message.ts";
import { AppError } from "../../domain/errors.ts";
import { atomically } from "../commit.ts";
import { applications, conversations } from "../keyspace.ts";
import { writeState } from "./entries.ts";
import { partiesFrom } from "./parties.ts";

const CONFLICT = "The conversation changed too often to mark it read; try again";

/** Moves `userId`'s marker forward to `upTo`; answers the messages still unread. */
export function markRead(
  kv: Deno.Kv,
  mark: { applicationId: string; userId: string; upTo: string },
): Promise<number> {
  const { applicationId, userId, upTo } = mark;
  return atomically(CONFLICT, async () => {
    const [appEntry, stateEntry, messageEntry] = await kv.getMany<
      [ApplicationRecord, ConversationState, MessageRecord]
    >([
      applications.record(applicationId),
      conversations.state(applicationId),
      conversations.message(applicationId, upTo),
    ]);
    const side = sideOf(partiesFrom(appEntry.value), userId);
    const state = stateEntry.value;
    const message = messageEntry.value;
    if (!state || !message) {
      throw new AppError("VALIDATION_ERROR", "upTo is not a message of this conversation", {
        errors: [{ path: "upTo", message: "must be the id of a message of this conversation" }],
      });
    }
    const mine = state.read[side];
    if (mine.upTo !== null && message.id <= mine.upTo) return { value: unreadOf(state, side) };
    const after: ConversationState = {
      ...state,
      read: { ...state.read, [side]: { upTo: message.id, count: message.counts[otherSide(side)] } },
    };
    const op = kv.atomic().check(stateEntry);
    writeState(op, state, after);
    return { value: unreadOf(after, side), op };
  });
}
