/**
 * A conversation's stored state and the rules over it: who its parties are, when it is closed,
 * how a message's id keeps the conversation's order, and what each party's listing entry shows.
 */
import { incrementBase32, ulid } from "ulid";
import { type ApplicationRecord, type ApplicationStatus, isActive } from "../application.ts";
import { AppError, notFound } from "../errors.ts";
import type { TaskRecord } from "../tasks/task.ts";
import { type LastMessage, otherSide, type Side } from "./message.ts";

/** How long after its task's completion a conversation takes messages. */
export const CONVERSATION_AFTER_COMPLETION_MS = 14 * 24 * 60 * 60 * 1000;

/** One side's read marker: the last message read, and the counterpart's messages up to it. */
export interface ReadMark {
  upTo: string | null;
  count: number;
}

/**
 * A conversation as stored (one per application). Every write of the conversation (a message, a
 * read marker, a refresh of its listing entries) checks this entry, so counts stay exact.
 */
export interface ConversationState {
  applicationId: string;
  taskId: string;
  creatorId: string;
  applicantId: string;
  /** The application's order key: the listing's order before the first message. */
  appOrderKey: string;
  taskTitle: string;
  applicationStatus: ApplicationStatus;
  lastMessage: LastMessage | null;
  /** Messages each side has sent. */
  sent: Record<Side, number>;
  read: Record<Side, ReadMark>;
  /** Sides whose account was purged: their listing entry is gone and is not written again. */
  purged: Side[];
}

/** What a party's listing entry (`conversations.byUser`) holds; the counterpart's name is read live. */
export interface ConversationEntry {
  applicationId: string;
  taskId: string;
  taskTitle: string;
  applicationStatus: ApplicationStatus;
  counterpartId: string | null;
  lastMessage: LastMessage | null;
  unread: number;
}

/** A new conversation's state, as the application's creation opens it. */
export function openState(app: ApplicationRecord, task: TaskRecord): ConversationState {
  return {
    applicationId: app.id,
    taskId: app.taskId,
    creatorId: app.taskOwnerId,
    applicantId: app.applicantId,
    appOrderKey: app.orderKey,
    taskTitle: task.title,
    applicationStatus: app.status,
    lastMessage: null,
    sent: { creator: 0, applicant: 0 },
    read: { creator: { upTo: null, count: 0 }, applicant: { upTo: null, count: 0 } },
    purged: [],
  };
}

/** The two parties of an application, which never change. */
export interface Parties {
  creatorId: string;
  applicantId: string;
}

/** The caller's side, or 404 for anyone but the two parties (the conversation is not theirs). */
export function sideOf(parties: Parties, userId: string): Side {
  if (userId === parties.creatorId) return "creator";
  if (userId === parties.applicantId) return "applicant";
  throw notFound("Conversation");
}

export function partyOn(parties: Parties, side: Side): string {
  return side === "creator" ? parties.creatorId : parties.applicantId;
}

/**
 * Why a conversation takes no more messages, or null while it does: its application declined or
 * withdrawn (or otherwise ended), its task deleted or cancelled, or 14 days past its completion.
 * `app` is the application as it stands (`effective`).
 */
export function closedBecause(
  app: ApplicationRecord,
  task: TaskRecord | null,
  now: number,
): string | null {
  if (!task || task.deletedAt !== null) return "its task was deleted";
  if (task.status === "cancelled") return "its task was cancelled";
  if (!isActive(app.status)) return `the application was ${app.status}`;
  if (task.completedAt && now >= Date.parse(task.completedAt) + CONVERSATION_AFTER_COMPLETION_MS) {
    return "its task was completed more than 14 days ago";
  }
  return null;
}

export function assertOpen(app: ApplicationRecord, task: TaskRecord | null, now: number) {
  const reason = closedBecause(app, task, now);
  if (reason) {
    throw new AppError("CONVERSATION_CLOSED", `The conversation is closed: ${reason}`);
  }
}

/**
 * The id of a message taken at `now` after `last`: a ULID of `now`, or the one just after `last`
 * when a clock behind the last writer's would sort it earlier, so ids order as messages were taken.
 */
export function nextMessageId(now: number, last: string | null): string {
  const id = ulid(now);
  if (last === null || id > last) return id;
  return last.slice(0, 10) + incrementBase32(last.slice(10));
}

/** Where a conversation sorts in its parties' listings: by its last message, else its application. */
export function rankOf(state: ConversationState): string {
  return state.lastMessage ? `m${state.lastMessage.id}` : `a${state.appOrderKey}`;
}

/** The counterpart's messages `side` has not read. */
export function unreadOf(state: ConversationState, side: Side): number {
  return state.sent[otherSide(side)] - state.read[side].count;
}

/** `side`'s listing entry of the conversation. */
export function entryFor(state: ConversationState, side: Side): ConversationEntry {
  const other = otherSide(side);
  return {
    applicationId: state.applicationId,
    taskId: state.taskId,
    taskTitle: state.taskTitle,
    applicationStatus: state.applicationStatus,
    counterpartId: state.purged.includes(other) ? null : partyOn(state, other),
    lastMessage: state.lastMessage,
    unread: unreadOf(state, side),
  };
}
