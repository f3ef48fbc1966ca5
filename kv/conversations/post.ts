/**
 * Posting a message: one round trip reads the application, its task, the conversation, the
 * recipient's webhook subscription and the sender's limit window; one atomic checks them all and
 * writes the message, the conversation's new state and listing entries, the limit's unit and the
 * recipient's `message.created`, so none of it is written without the rest.
 */
import { type ApplicationRecord, effective } from "../../domain/application.ts";
import {
  assertOpen,
  type ConversationState,
  nextMessageId,
  openState,
  partyOn,
  sideOf,
} from "../../domain/conversations/conversation.ts";
import {
  type MessageRecord,
  otherSide,
  toLastMessage,
  toMessage,
} from "../../domain/conversations/message.ts";
import { notFound } from "../../domain/errors.ts";
import { decide, type WindowDecision } from "../../domain/rate_limit/rate_window.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { atomically } from "../commit.ts";
import { addEffects, subscriptionKey } from "../effects.ts";
import { applications, conversations, tasks } from "../keyspace.ts";
import { countExactIn, readWindow } from "../rate_limit/exact_limit.ts";
import type { LimitPolicy } from "../rate_limit/rate_limit_rules.ts";
import { writeState } from "./entries.ts";
import { partiesOf } from "./parties.ts";

const CONFLICT = "The conversation changed too often to take the message; try again";

/** A message to post: who sends what, where, when, under which limit. */
export interface MessageDraft {
  applicationId: string;
  senderId: string;
  body: string;
  now: number;
  /** The sender's messages per minute, across conversations. */
  policy: LimitPolicy;
}

/** The stored message, or the limit's decision when the sender is past it. */
export type PostOutcome = { message: MessageRecord } | { limited: WindowDecision };

/** Posts a message (rules: domain `assertOpen`, the sender's exact limit). */
export async function postMessage(kv: Deno.Kv, draft: MessageDraft): Promise<PostOutcome> {
  const { applicationId, senderId, body, now, policy } = draft;
  const parties = await partiesOf(kv, applicationId);
  const side = sideOf(parties, senderId);
  const recipientId = partyOn(parties, otherSide(side));
  const use = { policy, subject: senderId, now };
  return atomically<PostOutcome>(CONFLICT, async () => {
    const [[appEntry, taskEntry, stateEntry, subscription], window] = await Promise.all([
      kv.getMany<[ApplicationRecord, TaskRecord, ConversationState, unknown]>([
        applications.record(applicationId),
        tasks.record(parties.taskId),
        conversations.state(applicationId),
        subscriptionKey(recipientId),
      ]),
      readWindow(kv, use),
    ]);
    if (!appEntry.value) throw notFound("Conversation");
    const task = taskEntry.value;
    const app = effective(appEntry.value, task);
    assertOpen(app, task, now);
    const decision = decide(window.counts, now, policy);
    if (!decision.allowed) return { value: { limited: decision } };
    const before = stateEntry.value ?? openState(appEntry.value, task!);
    const sent = { ...before.sent, [side]: before.sent[side] + 1 };
    const message: MessageRecord = {
      id: nextMessageId(now, before.lastMessage?.id ?? null),
      applicationId,
      taskId: parties.taskId,
      senderId,
      body,
      createdAt: new Date(now).toISOString(),
      counts: sent,
    };
    const after: ConversationState = {
      ...before,
      taskTitle: task!.title,
      applicationStatus: app.status,
      lastMessage: toLastMessage(toMessage(message)),
      sent,
    };
    const op = kv.atomic().check(appEntry).check(taskEntry).check(stateEntry)
      .set(conversations.message(applicationId, message.id), message);
    writeState(op, stateEntry.value, after);
    countExactIn(op, use, window.version);
    await addEffects(kv, op, {
      userId: recipientId,
      now,
      event: {
        type: "message.created",
        data: { message: toMessage(message), task: { id: task!.id, title: task!.title } },
      },
      subscriptionRead: subscription,
    });
    return { value: { message }, op };
  });
}
