/**
 * The application changes implied by closing a task: completing, cancelling or deleting it
 * declines its pending applications, and cancelling it cancels its accepted ones. The task's write
 * adds one job to its own atomic, and this handler stores each such application as it already
 * reads (`effective`) with its event, one atomic per application, so that a task with any number
 * of applications raises every event and never loses one.
 */
import { type ApplicationRecord, effective, isActive } from "../domain/application.ts";
import type { TaskCancelled } from "../domain/cancellation/cancelled_event.ts";
import type { TaskRecord } from "../domain/tasks/task.ts";
import { addApplicationEvents } from "./application_events.ts";
import { writeChange } from "./applications.ts";
import { addHelperCancelled, cancelledData } from "./cancellation/cancelled_helpers.ts";
import { atomically } from "./commit.ts";
import { addJob } from "./jobs/schedule.ts";
import type { JobContext, JobOutcome, JobPayload } from "./jobs/types.ts";
import { applications, tasks } from "./keyspace.ts";

/** Applications settled per run of the job; it runs again for the rest. */
export const DECLINE_BATCH = 200;

const CONFLICT = "The application changed too often to settle it; try again";

/** The job a task's write out of `published` adds to its atomic. */
export function queueImpliedDeclines(op: Deno.AtomicOperation, taskId: string) {
  addJob(op, { kind: "task_declines", taskId });
}

/**
 * Stores one application as it stands, with its event, when that differs from what is stored:
 * `application.declined` to both parties, or `task.cancelled` to a cancelled helper.
 */
async function settleImplied(
  kv: Deno.Kv,
  settle: { applicationId: string; now: number; cancelled: TaskCancelled | null },
): Promise<void> {
  await atomically(CONFLICT, async () => {
    const appEntry = await kv.get<ApplicationRecord>(applications.record(settle.applicationId));
    const app = appEntry.value;
    if (!app || !isActive(app.status)) return { value: null };
    const taskEntry = await kv.get<TaskRecord>(tasks.record(app.taskId));
    const next = effective(app, taskEntry.value);
    if (next.status === app.status) return { value: null };
    const op = kv.atomic().check(appEntry).check(taskEntry);
    writeChange(op, { next, task: taskEntry.value, acceptedDelta: 0 });
    if (next.status !== "cancelled") {
      await addApplicationEvents(kv, op, { app: next, now: settle.now });
    } else if (settle.cancelled) {
      const raised = { helperId: next.applicantId, data: settle.cancelled, now: settle.now };
      await addHelperCancelled(kv, op, raised);
    }
    return { value: null, op };
  });
}

/** Job handler of `task_declines`: one batch of the task's applications, after `after`. */
export async function settleImpliedDeclines(
  ctx: Pick<JobContext, "kv" | "now">,
  message: Extract<JobPayload, { kind: "task_declines" }>,
): Promise<JobOutcome> {
  const { kv, now } = ctx;
  const task = (await kv.get<TaskRecord>(tasks.record(message.taskId))).value;
  // Made once a batch: every helper of a cancelled task hears the same task.
  const cancelled = task?.status === "cancelled" ? await cancelledData(kv, task) : null;
  const prefix = applications.byTaskPrefix(message.taskId);
  const selector = message.after ? { prefix, start: [...prefix, message.after] } : { prefix };
  let read = 0;
  for await (const entry of kv.list<string>(selector, { limit: DECLINE_BATCH + 1 })) {
    if (read === DECLINE_BATCH) {
      // Maybe more: the job runs again at once for the rest, from this entry on.
      return { again: { at: 0, payload: { ...message, after: String(entry.key.at(-1)) } } };
    }
    await settleImplied(kv, { applicationId: entry.value, now: now(), cancelled });
    read++;
  }
}
