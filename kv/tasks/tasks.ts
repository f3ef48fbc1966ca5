/**
 * Tasks in KV: each write (create, edit, complete, cancel, delete) is one atomic that sets the
 * record, adds its history entries and moves its index entries and counters (see
 * task_indexes.ts). The owners' listings, which read those entries, are in task_listings.ts.
 *
 * A write takes what it writes as data. A creation's task and event are computed before the call.
 * A change's task depends on the task read inside the check-and-retry loop (an edit re-applied to
 * the fresh task after a concurrent write is never lost), so it comes as a pure domain transition
 * (domain/tasks/task_changes.ts) built by the caller from the request, and its event as domain's
 * rule over the task before and after with the author the caller read (see ../effects.ts): both
 * run again each round, neither reaches back into the caller.
 */
import { AppError } from "../../domain/errors.ts";
import type { TaskAuthor } from "../../domain/tasks/task_view.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { isPublic } from "../../domain/tasks/task.ts";
import { purgedAt, type TaskTransition } from "../../domain/tasks/task_changes.ts";
import {
  claimIdempotencySlot,
  type IdempotencyRecord,
  idempotencySlot,
  idempotencySlotKey,
} from "../idempotency.ts";
import { queueAlertMatching } from "../alerts/matching.ts";
import { queueImpliedDeclines } from "../application_declines.ts";
import { atomically } from "../commit.ts";
import { openReviewWindow } from "../reviews/window.ts";
import { queueTitleRefresh } from "../conversations/refresh.ts";
import {
  addEffects,
  applyRule,
  type DatedEffects,
  type RuledEffects,
  subscriptionKey,
} from "../effects.ts";
import { tasks } from "../keyspace.ts";
import { unpackItem } from "./packed_item.ts";
import { taskHistoryEntries } from "../../domain/history/task_history.ts";
import { appendHistory } from "../history/task_history.ts";
import { type TaskSearchEntry, writeTaskTransition } from "./task_indexes.ts";

const CONFLICT = "The task changed too often to complete the request; try again";

/** A task as stored, deleted ones included; null when it never existed. */
export async function getTask(kv: Deno.Kv, taskId: string): Promise<TaskRecord | null> {
  return (await kv.get<TaskRecord>(tasks.record(taskId))).value;
}

/**
 * What a change of a task raises: domain's rule (taskWriteEffects) over the stored task before
 * and the task after, with the author the caller read for the event's data.
 */
export type TaskChangeEffects = RuledEffects<TaskRecord, TaskAuthor>;

/** One task write: the states it moves between, what it raises, and reads made beside it. */
interface TaskWrite {
  before: TaskRecord | null;
  after: TaskRecord;
  effects?: DatedEffects;
  /** The owner's subscription entry, when the write read it with its own reads. */
  subscription?: Deno.KvEntryMaybe<unknown>;
}

/**
 * Adds a task write to `op`, every write's one way: the record, its history, its index entries
 * and counters, the settling of applications a closing implies, and what it raises.
 */
async function addTaskWrite(kv: Deno.Kv, op: Deno.AtomicOperation, write: TaskWrite) {
  const { before, effects } = write;
  const recorded = taskHistoryEntries(before, write.after, write.after.updatedAt);
  const after = appendHistory(op, write.after, recorded);
  writeTaskTransition(op, before, after);
  // A task published now is matched against the alerts, after the commit, by a job.
  if (!before) queueAlertMatching(op, after);
  // Closing a task declines its pending applications (and a cancellation cancels its accepted
  // ones): their stored states and events follow from this atomic, by a job.
  if (before && isPublic(before) && !isPublic(after)) queueImpliedDeclines(op, after.id);
  // Completing a task opens its parties' review window, and schedules its close.
  if (before?.status === "published" && after.status === "completed") openReviewWindow(op, after);
  // The task's conversations show its title in their listing entries.
  if (before && before.title !== after.title) queueTitleRefresh(op, after.id);
  if (!effects) return;
  await addEffects(kv, op, {
    ...effects,
    userId: after.userId,
    subscriptionRead: write.subscription,
  });
}

/** Stores a new task with what its creation raises, in one atomic. */
export function createTask(kv: Deno.Kv, task: TaskRecord, effects?: DatedEffects): Promise<void> {
  return atomically(CONFLICT, async () => {
    const op = kv.atomic().check({ key: tasks.record(task.id), versionstamp: null });
    await addTaskWrite(kv, op, { before: null, after: task, effects });
    return { value: undefined, op };
  });
}

/** A request made with an Idempotency-Key. */
export interface IdempotentRequest {
  userId: string;
  key: string;
  fingerprint: string;
  now: number;
  /** What the creation raises, in its atomic (not when the first response is replayed). */
  effects?: DatedEffects;
}

/**
 * Creates a task unless the user's Idempotency-Key was used before: then the first response is
 * returned (same body) or, for another body, 422. The key is claimed in the task's own atomic,
 * so of two simultaneous requests with one key exactly one creates; the other replays.
 */
export function createTaskOnce<R>(
  kv: Deno.Kv,
  task: TaskRecord,
  once: { request: IdempotentRequest; response: R },
): Promise<{ response: R; replayed: boolean }> {
  const { request, response } = once;
  const slotKey = idempotencySlotKey({ ...request, scope: "create_task" });
  return atomically<{ response: R; replayed: boolean }>(CONFLICT, async () => {
    // The slot and the subscription the effects check, in one read (one round trip on Deploy).
    const [slotEntry, subscription] = await kv.getMany([slotKey, subscriptionKey(task.userId)]);
    const slot = idempotencySlot<R>(slotEntry, request.now);
    if (slot.record) {
      if (slot.record.fingerprint !== request.fingerprint) {
        throw new AppError(
          "IDEMPOTENCY_KEY_REUSED",
          "This Idempotency-Key was used with another request body",
        );
      }
      return { value: { response: slot.record.response, replayed: true } };
    }
    const record: IdempotencyRecord<R> = {
      fingerprint: request.fingerprint,
      createdAt: new Date(request.now).toISOString(),
      response,
    };
    const op = kv.atomic().check({ key: tasks.record(task.id), versionstamp: null });
    claimIdempotencySlot(op, slot, record);
    await addTaskWrite(kv, op, {
      before: null,
      after: task,
      effects: request.effects,
      subscription,
    });
    return { value: { response, replayed: false }, op };
  });
}

/** A change of one task, and what it raises from the task before and after. */
export interface TaskChange<T extends TaskRecord | null> {
  taskId: string;
  /**
   * Domain's transition from the stored state (null when absent) to the next one, or the same
   * value (null included) to write nothing; it runs again on the fresh state after a concurrent
   * write, so a partial edit is re-applied and never lost.
   */
  change: TaskTransition<T>;
  effects?: TaskChangeEffects;
  /** The task's expected owner: their subscription, which the effects check, is read with it. */
  owner?: string;
}

/** Rewrites a task under a versionstamp check, raising the change's effects in its atomic. */
export function changeTask<T extends TaskRecord | null>(
  kv: Deno.Kv,
  request: TaskChange<T>,
): Promise<T> {
  return atomically(CONFLICT, async () => {
    const record = tasks.record(request.taskId);
    const [entry, subscription] = request.effects && request.owner
      ? await kv.getMany<[TaskRecord, unknown]>([record, subscriptionKey(request.owner)])
      : [await kv.get<TaskRecord>(record), undefined];
    const next = request.change(entry.value);
    if (next === null || next === entry.value) return { value: next };
    const op = kv.atomic().check(entry);
    const effects = request.effects && applyRule(request.effects, entry.value, next);
    await addTaskWrite(kv, op, { before: entry.value, after: next, effects, subscription });
    return { value: next, op };
  });
}

/**
 * Soft-deletes the live tasks of a user, up to `limit` of them (all when absent), each in its own
 * atomic (account purge). Idempotent: tasks already deleted are not in the index it walks.
 * Returns how many it deleted.
 */
export async function deleteUserTasks(
  kv: Deno.Kv,
  purge: { userId: string; at: string; limit?: number },
): Promise<number> {
  const { userId, at, limit } = purge;
  const deleteLive = purgedAt(at);
  let deleted = 0;
  const entries = kv.list<TaskSearchEntry>({ prefix: tasks.byUserPrefix(userId) }, { limit });
  for await (const entry of entries) {
    // Whether the round that committed deleted the task: a round run again counts once.
    let deletes = false;
    await changeTask(kv, {
      taskId: unpackItem(entry.value).id,
      change: (task) => {
        const next = deleteLive(task);
        deletes = next !== task;
        return next;
      },
    });
    if (deletes) deleted++;
  }
  return deleted;
}
