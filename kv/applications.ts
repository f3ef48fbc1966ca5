/**
 * Applications in KV: the record, its two newest-first indexes (by task, by applicant) and the
 * active marker that keeps one pending or accepted application per user and task. An acceptance
 * rewrites its task (acceptedCount) through the task's own transition, in the same atomic.
 */
import {
  type ApplicationRecord,
  type ApplicationStatus,
  assertCanApply,
  effective,
  isActive,
  transition,
} from "../domain/application.ts";
import { AppError, notFound } from "../domain/errors.ts";
import { acceptedOf, isPublic, type TaskRecord } from "../domain/tasks/task.ts";
import type { UserRecord } from "../domain/users/user.ts";
import { addApplicationEvents } from "./application_events.ts";
import { openConversation } from "./conversations/entries.ts";
import { addJob } from "./jobs/schedule.ts";
import { atomically } from "./commit.ts";
import { readNewestFirst } from "./cursor.ts";
import { applications, tasks, users } from "./keyspace.ts";
import { getAll } from "./store/get_all.ts";
import { writeTaskTransition } from "./tasks/task_indexes.ts";
import { applicationHistoryEntry, type HistoryEntry } from "../domain/history/task_history.ts";
import { appendHistory } from "./history/task_history.ts";
import { markHelper } from "./history/task_helpers.ts";

const CONFLICT = "The application or its task changed too often to complete the request; try again";

/**
 * Stores a new pending application. Checked in one atomic: the task as read (published, not the
 * applicant's), the applicant's account as read (not deleted meanwhile, so the purge that follows
 * a deletion finds it), no active application of this user to this task, and none declined.
 */
export function createApplication(kv: Deno.Kv, app: ApplicationRecord): Promise<ApplicationRecord> {
  return atomically(CONFLICT, async () => {
    const [taskEntry, marker, applicant, declined] = await kv.getMany<
      [TaskRecord, string, UserRecord, string]
    >([
      tasks.record(app.taskId),
      applications.active(app.applicantId, app.taskId),
      users.record(app.applicantId),
      applications.declined(app.applicantId, app.taskId),
    ]);
    const task = assertCanApply(taskEntry.value, app.applicantId);
    if (!applicant.value || applicant.value.deletedAt) throw notFound("User");
    if (marker.value !== null) {
      throw new AppError("ALREADY_APPLIED", "You already have an active application to this task");
    }
    if (declined.value !== null) {
      throw new AppError(
        "APPLICATION_DECLINED",
        "Your application to this task was declined; you cannot apply to it again",
      );
    }
    const stored: ApplicationRecord = { ...app, taskOwnerId: task.userId };
    const op = kv.atomic()
      .check(taskEntry)
      .check(marker)
      .check(applicant)
      .check(declined)
      .check({ key: applications.record(app.id), versionstamp: null })
      .set(applications.record(app.id), stored)
      .set(applications.byTask(app.taskId, app.orderKey), app.id)
      .set(applications.byApplicant(app.applicantId, app.orderKey), app.id)
      .set(applications.active(app.applicantId, app.taskId), app.id);
    openConversation(op, stored, task);
    await addApplicationEvents(kv, op, { app: stored, now: Date.parse(stored.createdAt) });
    return { value: stored, op };
  });
}

/** One application's stored change, and what it does to its task. */
export interface ApplicationWrite {
  next: ApplicationRecord;
  task: TaskRecord | null;
  acceptedDelta: number;
  /** The task's history entry the change records, if it records one. */
  history?: HistoryEntry | null;
}

/**
 * Adds to `op` the application's new state, its marker's end, a decline's lasting mark (however
 * the decline came: by the creator, or implied by the task's completion, cancellation or
 * deletion), an acceptance's lasting mark, and the task's new count and history.
 */
export function writeChange(op: Deno.AtomicOperation, write: ApplicationWrite) {
  const { next, task, acceptedDelta, history } = write;
  op.set(applications.record(next.id), next);
  // The conversation's listing entries show the status: its job rewrites them.
  addJob(op, { kind: "conversation_refresh", applicationId: next.id });
  if (!isActive(next.status)) op.delete(applications.active(next.applicantId, next.taskId));
  if (next.status === "declined") {
    op.set(applications.declined(next.applicantId, next.taskId), next.id);
  }
  if (next.status === "accepted" || next.status === "cancelled") markHelper(op, next);
  if (task && (acceptedDelta !== 0 || history)) {
    const counted = { ...task, acceptedCount: acceptedOf(task) + acceptedDelta };
    writeTaskTransition(op, task, appendHistory(op, counted, history ? [history] : []));
  }
}

/**
 * Moves an application to `to` on behalf of `actorId` (rules: domain `transition`). The atomic
 * checks the application and its task as read, and an acceptance the applicant's account too:
 * every acceptance rewrites the task's acceptedCount, so two acceptances on any instances never
 * both pass a count read before the other's commit, and maxPeople holds exactly.
 */
export function changeApplication(
  kv: Deno.Kv,
  change: { applicationId: string; actorId: string; to: ApplicationStatus; at: string },
): Promise<ApplicationRecord> {
  return atomically(CONFLICT, async () => {
    const appEntry = await kv.get<ApplicationRecord>(applications.record(change.applicationId));
    if (!appEntry.value) throw notFound("Application");
    const app = appEntry.value;
    const [taskEntry, applicant] = await kv.getMany<[TaskRecord, UserRecord]>([
      tasks.record(app.taskId),
      users.record(app.applicantId),
    ]);
    const { next, acceptedDelta } = transition(app, taskEntry.value, change);
    if (change.to === "accepted" && (!applicant.value || applicant.value.deletedAt)) {
      throw new AppError("INVALID_TRANSITION", "The applicant's account was deleted");
    }
    const op = kv.atomic().check(appEntry).check(taskEntry).check(applicant);
    const history = applicationHistoryEntry({
      from: effective(app, taskEntry.value).status,
      to: next.status,
      actorId: change.actorId,
      at: change.at,
    });
    writeChange(op, { next, task: taskEntry.value, acceptedDelta, history });
    await addApplicationEvents(kv, op, { app: next, now: Date.parse(change.at) });
    return { value: next, op };
  });
}

/**
 * Ends one active application of a deleted account (purge): withdrawn while its task is
 * published (an accepted one frees its spot), else settled as it stands (`effective`); the
 * marker goes either way, so that each call makes progress. Idempotent.
 */
async function settleForPurge(
  kv: Deno.Kv,
  marker: Deno.KvEntry<string>,
  at: string,
): Promise<void> {
  await atomically(CONFLICT, async () => {
    const appEntry = await kv.get<ApplicationRecord>(applications.record(marker.value));
    const app = appEntry.value;
    // Never written without its record; should one be alone, it goes, so that a purge ends.
    if (!app) return { value: null, op: kv.atomic().delete(marker.key) };
    const taskEntry = await kv.get<TaskRecord>(tasks.record(app.taskId));
    const task = taskEntry.value;
    let next = effective(app, task);
    let delta = 0;
    if (isActive(next.status) && task && isPublic(task)) {
      delta = next.status === "accepted" ? -1 : 0;
      next = { ...next, status: "withdrawn", updatedAt: at };
    }
    const op = kv.atomic().check(appEntry).check(taskEntry)
      .delete(applications.active(app.applicantId, app.taskId));
    const history = applicationHistoryEntry({
      from: app.status,
      to: next.status,
      actorId: app.applicantId,
      at,
    });
    if (next !== app) writeChange(op, { next, task, acceptedDelta: delta, history });
    // Whichever write stores a new status raises its event: this one, or the task's declines.
    if (next.status !== app.status) {
      await addApplicationEvents(kv, op, { app: next, now: Date.parse(at) });
    }
    return { value: null, op };
  });
}

/**
 * Withdraws the active applications of a deleted account, up to `limit` of them, each in its
 * own atomic. Returns how many it settled; fewer than `limit` means none is left.
 */
export async function withdrawUserApplications(
  kv: Deno.Kv,
  purge: { userId: string; at: string; limit: number },
): Promise<number> {
  const { userId, at, limit } = purge;
  let settled = 0;
  for await (
    const entry of kv.list<string>({ prefix: applications.activePrefix(userId) }, { limit })
  ) {
    await settleForPurge(kv, entry, at);
    settled++;
  }
  return settled;
}

/** A page of applications, newest first, and the order key to continue after. */
export interface ApplicationPage<T> {
  items: T[];
  next: string | null;
}

/** One page of a task's applications as they stand, newest first (the caller checks access). */
export async function listTaskApplications(
  kv: Deno.Kv,
  page: { task: TaskRecord; limit: number; before?: string },
): Promise<ApplicationPage<ApplicationRecord>> {
  const { task, limit, before } = page;
  const read = await readNewestFirst<string>(kv, {
    prefix: applications.byTaskPrefix(task.id),
    limit,
    before,
  });
  const records = await getAll<ApplicationRecord>(
    kv,
    read.entries.map((e) => applications.record(e.value)),
  );
  const items = records.filter((r): r is ApplicationRecord => r !== null)
    .map((r) => effective(r, task));
  return { items, next: read.next };
}

/** One page of a user's own applications as they stand, each with its task, newest first. */
export async function listUserApplications(
  kv: Deno.Kv,
  page: { userId: string; limit: number; before?: string },
): Promise<ApplicationPage<{ application: ApplicationRecord; task: TaskRecord }>> {
  const { userId, limit, before } = page;
  const read = await readNewestFirst<string>(kv, {
    prefix: applications.byApplicantPrefix(userId),
    limit,
    before,
  });
  const records = await getAll<ApplicationRecord>(
    kv,
    read.entries.map((e) => applications.record(e.value)),
  );
  const found = records.filter((r): r is ApplicationRecord => r !== null);
  const taskIds = [...new Set(found.map((r) => r.taskId))];
  const taskList = await getAll<TaskRecord>(kv, taskIds.map((id) => tasks.record(id)));
  const byId = new Map(taskList.filter((t): t is TaskRecord => t !== null).map((t) => [t.id, t]));
  const items = found.flatMap((r) => {
    const task = byId.get(r.taskId);
    return task ? [{ application: effective(r, task), task }] : [];
  });
  return { items, next: read.next };
}
