/**
 * Applications to tasks (docs/contract.md section 15): request and response shapes, the stored record, and
 * who may move an application to which status, as plain functions.
 */
import { z } from "zod";
import { userText } from "./validation/text.ts";
import { AppError, notFound } from "./errors.ts";
import {
  acceptedOf,
  isPublic,
  MAX_BUDGET,
  type TaskRecord,
  TaskStatus,
  TWO_DECIMALS,
} from "./tasks/task.ts";

export const APPLICATION_STATUSES = [
  "pending",
  "accepted",
  "declined",
  "withdrawn",
  "cancelled",
] as const;
export const ApplicationStatus = z.enum(APPLICATION_STATUSES).meta({ id: "ApplicationStatus" });
export type ApplicationStatus = z.infer<typeof ApplicationStatus>;

const hasAtMostTwoDecimals = (n: number) => Math.round(n * 100) / 100 === n;

export const ApplicationCreate = z.strictObject({
  message: userText({ min: 1, max: 2_000, multiline: true }),
  price: z.number().min(0).max(MAX_BUDGET)
    .refine(hasAtMostTwoDecimals, "must have at most 2 decimals")
    .optional()
    .describe(`The price asked, in the task's currency. ${TWO_DECIMALS}`),
}).meta({ id: "ApplicationCreate" });
export type ApplicationCreate = z.infer<typeof ApplicationCreate>;

export const ApplicationPatch = z.strictObject({
  status: z.enum(["accepted", "declined", "withdrawn"], {
    error: 'must be "accepted" or "declined" (the task\'s creator) or "withdrawn" (the applicant)',
  }),
}).meta({ id: "ApplicationPatch" });
export type ApplicationPatch = z.infer<typeof ApplicationPatch>;

export const Application = z.object({
  id: z.uuid(),
  taskId: z.uuid(),
  applicantId: z.uuid(),
  message: z.string(),
  price: z.number().nullable(),
  status: ApplicationStatus,
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: "Application" });
export type Application = z.infer<typeof Application>;

/** What an applicant's own listing shows of each task; `deleted` once the task is gone. */
export const ApplicationTaskSummary = z.object({
  id: z.uuid(),
  title: z.string(),
  budget: z.number(),
  currency: z.string(),
  status: z.union([TaskStatus, z.literal("deleted")]),
}).meta({ id: "ApplicationTaskSummary" });
export type ApplicationTaskSummary = z.infer<typeof ApplicationTaskSummary>;

export const MyApplication = Application.extend({ task: ApplicationTaskSummary })
  .meta({ id: "MyApplication" });
export type MyApplication = z.infer<typeof MyApplication>;

/** A stored application. */
export interface ApplicationRecord {
  id: string;
  taskId: string;
  /** The task's creator, kept so that an application's parties are known without the task. */
  taskOwnerId: string;
  applicantId: string;
  message: string;
  price: number | null;
  status: ApplicationStatus;
  createdAt: string;
  updatedAt: string;
  /** The ULID that orders the application in its newest-first indexes. */
  orderKey: string;
}

/** Pending and accepted applications hold their place: one of them per user and task. */
export function isActive(status: ApplicationStatus): boolean {
  return status === "pending" || status === "accepted";
}

/**
 * The application as it stands: a pending application of a task that was completed, cancelled
 * or deleted is declined at that moment, and an accepted one of a cancelled task is cancelled.
 * The task's own write is that change (no per-application write in it, however many there are);
 * readers and later writes see it through this rule, and a queued handler later stores it with
 * its event (kv/application_declines.ts).
 */
export function effective(app: ApplicationRecord, task: TaskRecord | null): ApplicationRecord {
  if (!isActive(app.status) || (task && isPublic(task))) return app;
  const cancelledAt = task?.status === "cancelled" ? task.cancelledAt ?? task.updatedAt : null;
  if (app.status === "accepted") {
    // A completed or deleted task keeps its accepted people; a cancelled one releases them.
    return cancelledAt ? { ...app, status: "cancelled", updatedAt: cancelledAt } : app;
  }
  const at = cancelledAt ?? task?.deletedAt ?? task?.completedAt ?? app.updatedAt;
  return { ...app, status: "declined", updatedAt: at };
}

export function toApplication(app: ApplicationRecord): Application {
  return {
    id: app.id,
    taskId: app.taskId,
    applicantId: app.applicantId,
    message: app.message,
    price: app.price,
    status: app.status,
    createdAt: app.createdAt,
    updatedAt: app.updatedAt,
  };
}

export function toTaskSummary(task: TaskRecord): ApplicationTaskSummary {
  return {
    id: task.id,
    title: task.title,
    budget: task.budget,
    currency: task.currency,
    status: task.deletedAt === null ? task.status : "deleted",
  };
}

/**
 * Who may apply: anyone but the creator, to a task they can see that is published. A task the
 * caller cannot see is not found.
 */
export function assertCanApply(task: TaskRecord | null, userId: string): TaskRecord {
  if (!task || !isPublic(task)) {
    if (task && task.deletedAt === null && task.userId === userId) {
      throw new AppError("INVALID_TRANSITION", "Only a published task takes applications");
    }
    throw notFound("Task");
  }
  if (task.userId === userId) {
    throw new AppError("FORBIDDEN", "The creator of a task cannot apply to it");
  }
  return task;
}

/** An allowed change: the application as changed, and what it does to the accepted count. */
export interface Transition {
  next: ApplicationRecord;
  acceptedDelta: -1 | 0 | 1;
}

const notAllowed = (from: ApplicationStatus, to: ApplicationStatus, by: string) =>
  new AppError("INVALID_TRANSITION", `The ${by} cannot move an application from ${from} to ${to}`);

/**
 * The rules of a status change, on the application as it stands (`effective`). The creator
 * accepts or declines a pending application and may decline an accepted one; the applicant
 * withdraws a pending or accepted one. Both only while the task is published: a completed task
 * keeps its accepted people. Anyone else gets 404, as if the application did not exist.
 */
export function transition(
  stored: ApplicationRecord,
  task: TaskRecord | null,
  change: { actorId: string; to: ApplicationStatus; at: string },
): Transition {
  const app = effective(stored, task);
  const { actorId, to, at } = change;
  const isCreator = actorId === app.taskOwnerId;
  if (!isCreator && actorId !== app.applicantId) throw notFound("Application");
  const by = isCreator ? "task's creator" : "applicant";
  const allowed = isCreator
    ? (to === "accepted" && app.status === "pending") ||
      (to === "declined" && isActive(app.status))
    : to === "withdrawn" && isActive(app.status);
  if (!allowed) throw notAllowed(app.status, to, by);
  if (!task || !isPublic(task)) {
    throw new AppError("INVALID_TRANSITION", "The task is no longer published");
  }
  if (to === "accepted" && acceptedOf(task) >= task.maxPeople) {
    throw new AppError("TASK_FULL", `The task already has its ${task.maxPeople} people`);
  }
  const next: ApplicationRecord = { ...app, status: to, updatedAt: at };
  const acceptedDelta = to === "accepted" ? 1 : app.status === "accepted" ? -1 : 0;
  return { next, acceptedDelta };
}
