/**
 * A stored task's changes as pure transitions: each takes the task as the store reads it (null:
 * absent) and answers the task to write. kv runs one inside its check-and-retry loop (changeTask)
 * and again on the fresh task after a concurrent write, so a partial edit is re-applied, never
 * lost; a transition therefore reads nothing else and does nothing. A route builds one from the
 * request (who, what, when) and passes it down: nothing in it calls back into routes.
 */
import { applyCancel } from "../cancellation/cancellation.ts";
import type { CancelRequest } from "../cancellation/cancel_shapes.ts";
import { applyPatch, assertOwner, isLive, markDeleted, type TaskPatch } from "./task.ts";
import type { TaskRecord } from "./task.ts";

/** The task to write given the stored one; answering the same value (null included) writes nothing. */
export type TaskTransition<T extends TaskRecord | null = TaskRecord> = (
  task: TaskRecord | null,
) => T;

/** Who changes a task, and when. */
export interface TaskActor {
  userId: string;
  /** The change's time, as stored (ISO 8601). */
  at: string;
}

/** Its creator's edit or completion of a published task (PATCH). */
export function ownersEdit(actor: TaskActor, patch: TaskPatch): TaskTransition {
  return (task) => applyPatch(assertOwner(task, actor.userId), patch, actor.at);
}

/** Its creator's soft delete (DELETE). */
export function ownersDeletion(actor: TaskActor): TaskTransition {
  return (task) => markDeleted(assertOwner(task, actor.userId), actor.at);
}

/** Its creator's cancellation of a published task. */
export function ownersCancellation(actor: TaskActor, request: CancelRequest): TaskTransition {
  return (task) => applyCancel(assertOwner(task, actor.userId), request, actor.at);
}

/** An account purge's delete: a live task is deleted at `at`; any other is left as it is. */
export function purgedAt(at: string): TaskTransition<TaskRecord | null> {
  return (task) => task && isLive(task) ? markDeleted(task, at) : task;
}
