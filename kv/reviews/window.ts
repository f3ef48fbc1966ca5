/**
 * A completed task's review window: opened by the completion's atomic (its state and the job due
 * when it closes), closed by that job, which then shows every review still hidden. Reviews check
 * the state in their atomic, so none lands hidden after the job has looked.
 */
import {
  type ReviewRecord,
  type ReviewWindow,
  windowClosesAt,
} from "../../domain/reviews/review.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { atomically } from "../commit.ts";
import { addJob } from "../jobs/schedule.ts";
import type { JobContext, JobOutcome, JobPayload } from "../jobs/types.ts";
import { reviews } from "../keyspace.ts";
import { reveal } from "./reveal.ts";

/** Reviews shown per run of the job; it runs again for the rest. */
export const WINDOW_BATCH = 100;

const CONFLICT = "The review window changed too often to close it; try again";

/**
 * Adds to `op` (the atomic that completes `task`, or a task's first review when it was completed
 * before reviews existed) the window's state and the job that closes it.
 */
export function openReviewWindow(op: Deno.AtomicOperation, task: TaskRecord) {
  const closesAt = windowClosesAt(task);
  if (closesAt === null) return;
  const window: ReviewWindow = { closesAt, closed: false };
  op.set(reviews.window(task.id), window);
  addJob(op, { kind: "review_window", taskId: task.id }, closesAt);
}

/** Marks the window closed; false while it is not due yet (a runner's clock ahead of ours). */
function markClosed(kv: Deno.Kv, taskId: string, now: number): Promise<boolean> {
  return atomically(CONFLICT, async () => {
    const entry = await kv.get<ReviewWindow>(reviews.window(taskId));
    const window = entry.value;
    if (window?.closed) return { value: true };
    if (window && now < window.closesAt) return { value: false };
    const closed: ReviewWindow = { closesAt: window?.closesAt ?? now, closed: true };
    return { value: true, op: kv.atomic().check(entry).set(entry.key, closed) };
  });
}

/** Shows one review if it is still hidden, alone: its counterpart never reviewed back. */
async function showAlone(kv: Deno.Kv, key: Deno.KvKey, at: string): Promise<void> {
  await atomically(CONFLICT, async () => {
    const entry = await kv.get<ReviewRecord>(key);
    if (!entry.value || entry.value.visibleAt !== null) return { value: null };
    const op = kv.atomic().check(entry);
    reveal(op, [entry.value], at);
    return { value: null, op };
  });
}

/** Job handler of `review_window`: closes the window, then shows its hidden reviews in batches. */
export async function closeReviewWindow(
  ctx: Pick<JobContext, "kv" | "now">,
  message: Extract<JobPayload, { kind: "review_window" }>,
): Promise<JobOutcome> {
  const { kv, now } = ctx;
  if (!message.after) {
    const closed = await markClosed(kv, message.taskId, now());
    if (!closed) {
      const window = await kv.get<ReviewWindow>(reviews.window(message.taskId));
      return { again: { at: window.value?.closesAt ?? now() } };
    }
  }
  const prefix = reviews.byTaskPrefix(message.taskId);
  const selector = message.after
    ? { prefix, start: [...prefix, ...JSON.parse(message.after)] }
    : { prefix };
  const at = new Date(now()).toISOString();
  let read = 0;
  for await (const entry of kv.list<ReviewRecord>(selector, { limit: WINDOW_BATCH + 1 })) {
    if (read === WINDOW_BATCH) {
      const after = JSON.stringify(entry.key.slice(prefix.length));
      return { again: { at: 0, payload: { ...message, after } } };
    }
    if (entry.value.visibleAt === null) await showAlone(kv, entry.key, at);
    read++;
  }
}
