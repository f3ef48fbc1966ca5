/**
 * Keeping the listing entries' copies current: a change of an application's status, or of its
 * task's title, writes a job in its own atomic, and the job rewrites the conversation's state and
 * entries under the state's check, so it never undoes a message or a read marker that raced it.
 */
import { type ApplicationRecord, effective } from "../../domain/application.ts";
import type { ConversationState } from "../../domain/conversations/conversation.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { atomically } from "../commit.ts";
import { addJob } from "../jobs/schedule.ts";
import type { JobContext, JobOutcome, JobPayload } from "../jobs/types.ts";
import { applications, conversations, tasks } from "../keyspace.ts";
import { writeState } from "./entries.ts";

/** Conversations refreshed per run of a title's job; it runs again for the rest. */
export const TITLE_BATCH = 100;

const CONFLICT = "The conversation changed too often to refresh it; try again";

/** The job a task's write that changes its title adds to its atomic. */
export function queueTitleRefresh(op: Deno.AtomicOperation, taskId: string) {
  addJob(op, { kind: "conversation_titles", taskId });
}

/** Rewrites one conversation from its application and task as they stand, if they differ. */
export async function refreshConversation(kv: Deno.Kv, applicationId: string): Promise<void> {
  await atomically(CONFLICT, async () => {
    const [appEntry, stateEntry] = await kv.getMany<[ApplicationRecord, ConversationState]>([
      applications.record(applicationId),
      conversations.state(applicationId),
    ]);
    const state = stateEntry.value;
    if (!appEntry.value || !state) return { value: null };
    const task = (await kv.get<TaskRecord>(tasks.record(state.taskId))).value;
    const after: ConversationState = {
      ...state,
      applicationStatus: effective(appEntry.value, task).status,
      taskTitle: task?.title ?? state.taskTitle,
    };
    if (
      after.applicationStatus === state.applicationStatus && after.taskTitle === state.taskTitle
    ) {
      return { value: null };
    }
    const op = kv.atomic().check(stateEntry);
    writeState(op, state, after);
    return { value: null, op };
  });
}

/** Job handler of `conversation_refresh`. */
export async function refreshJob(
  ctx: Pick<JobContext, "kv">,
  message: Extract<JobPayload, { kind: "conversation_refresh" }>,
): Promise<JobOutcome> {
  await refreshConversation(ctx.kv, message.applicationId);
}

/** Job handler of `conversation_titles`: one batch of the task's conversations, after `after`. */
export async function refreshTitles(
  ctx: Pick<JobContext, "kv">,
  message: Extract<JobPayload, { kind: "conversation_titles" }>,
): Promise<JobOutcome> {
  const { kv } = ctx;
  const prefix = applications.byTaskPrefix(message.taskId);
  const selector = message.after ? { prefix, start: [...prefix, message.after] } : { prefix };
  let read = 0;
  for await (const entry of kv.list<string>(selector, { limit: TITLE_BATCH + 1 })) {
    if (read === TITLE_BATCH) {
      return { again: { at: 0, payload: { ...message, after: String(entry.key.at(-1)) } } };
    }
    await refreshConversation(kv, entry.value);
    read++;
  }
}
