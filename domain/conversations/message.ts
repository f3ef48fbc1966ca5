/**
 * Conversations (docs/contract.md section 18): the shapes of a message, a conversation and the
 * read marker, as the API takes and answers them.
 */
import { z } from "zod";
import { ApplicationStatus } from "../application.ts";
import { userText } from "../validation/text.ts";

/** The most characters a message's body holds, once trimmed. */
export const MAX_MESSAGE_LENGTH = 4_000;

const Ulid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, "must be a message id (a ULID)");

export const MessageCreate = z.strictObject({
  body: userText({ min: 1, max: MAX_MESSAGE_LENGTH, multiline: true })
    .describe("Trimmed; 1 to 4,000 characters under the text rules of a description"),
}).meta({ id: "MessageCreate" });
export type MessageCreate = z.infer<typeof MessageCreate>;

export const Message = z.object({
  id: Ulid.describe("A ULID: ids order as the messages were taken"),
  applicationId: z.uuid(),
  taskId: z.uuid(),
  senderId: z.uuid().nullable().describe("null once the sender's account was deleted"),
  body: z.string().nullable().describe("null once the sender's account was deleted"),
  createdAt: z.string(),
}).meta({ id: "ConversationMessage" });
export type Message = z.infer<typeof Message>;

export const LastMessage = Message.pick({ id: true, senderId: true, body: true, createdAt: true })
  .meta({ id: "LastMessage" });
export type LastMessage = z.infer<typeof LastMessage>;

export const Counterpart = z.object({
  id: z.uuid().nullable().describe("null once the counterpart's account was deleted"),
  firstName: z.string().nullable().describe("null once the counterpart's account was deleted"),
}).meta({ id: "Counterpart" });

export const Conversation = z.object({
  applicationId: z.uuid(),
  taskId: z.uuid(),
  taskTitle: z.string(),
  applicationStatus: ApplicationStatus,
  counterpart: Counterpart,
  lastMessage: LastMessage.nullable(),
  unread: z.number().int().min(0).describe("The counterpart's messages after the read marker"),
}).meta({ id: "Conversation" });
export type Conversation = z.infer<typeof Conversation>;

/** The data of `message.created`: the message and its task. */
export const MessageCreated = z.object({
  message: Message,
  task: z.object({ id: z.uuid(), title: z.string() }),
}).meta({ id: "MessageCreated" });

export const ReadMarker = z.strictObject({
  upTo: Ulid.describe("A message of this conversation: it and every one before it are read"),
}).meta({ id: "ReadMarker" });
export type ReadMarker = z.infer<typeof ReadMarker>;

export const ReadState = z.object({
  unread: z.number().int().min(0).describe("The counterpart's messages after the read marker"),
}).meta({ id: "ReadState" });
export type ReadState = z.infer<typeof ReadState>;

/** The side of a conversation a party is on: the task's creator or the applicant. */
export type Side = "creator" | "applicant";

export const otherSide = (side: Side): Side => side === "creator" ? "applicant" : "creator";

/** A stored message; `counts` is each side's messages up to and including this one. */
export interface MessageRecord {
  id: string;
  applicationId: string;
  taskId: string;
  senderId: string | null;
  body: string | null;
  createdAt: string;
  counts: Record<Side, number>;
}

export function toMessage(record: MessageRecord): Message {
  const { id, applicationId, taskId, senderId, body, createdAt } = record;
  return { id, applicationId, taskId, senderId, body, createdAt };
}

export function toLastMessage(record: Message): LastMessage {
  const { id, senderId, body, createdAt } = record;
  return { id, senderId, body, createdAt };
}
