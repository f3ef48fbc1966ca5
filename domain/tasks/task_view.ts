/**
 * What a task looks like in responses: the list, create and single shapes (one zod schema each)
 * and the functions that make them from a stored task.
 */
import { z } from "zod";
import { Rating } from "../reviews/review.ts";
import { Cancellation } from "../cancellation/cancel_shapes.ts";
import { acceptedOf, Location, spotsLeftOf, type TaskRecord, TaskStatus } from "./task.ts";

/** How many people the task has taken, and how many more it takes (never below 0). */
const acceptance = {
  acceptedCount: z.number().int().describe("Applications accepted so far"),
  spotsLeft: z.number().int().describe("maxPeople minus acceptedCount: how many more it takes"),
};

export const TaskListItem = z.object({
  id: z.uuid(),
  title: z.string(),
  budget: z.number(),
  currency: z.string(),
  status: TaskStatus,
  createdAt: z.string(),
  ...acceptance,
}).meta({ id: "TaskListItem" });
export type TaskListItem = z.infer<typeof TaskListItem>;

export const TaskCreated = z.object({
  id: z.uuid(),
  title: z.string(),
  description: z.string(),
  budget: z.number(),
  currency: z.string(),
  status: TaskStatus,
  createdAt: z.string(),
  location: Location,
  requirement: z.string(),
  dueDate: z.string().nullable(),
  maxPeople: z.number().int(),
  ...acceptance,
  updatedAt: z.string(),
  completedAt: z.string().nullable().meta({
    description: "When the task was completed; null while it is published",
  }),
  cancelledAt: z.string().nullable().meta({
    description: "When its creator cancelled the task; null unless it is cancelled",
  }),
  cancellation: Cancellation.nullable().meta({
    description: "Why the task was cancelled; null unless it is cancelled",
  }),
}).meta({ id: "TaskCreated" });
export type TaskCreated = z.infer<typeof TaskCreated>;

export const TaskDetail = TaskCreated.extend({
  authorFirstName: z.string(),
  authorProfilePic: z.string(),
  images: z.array(z.string()),
  cities: z.array(z.string()),
  authorRating: Rating,
}).meta({ id: "TaskDetail" });
export type TaskDetail = z.infer<typeof TaskDetail>;

/** What a task page shows of its author. */
export interface TaskAuthor {
  id: string;
  firstName: string;
  profilePic: string | null;
  rating: Rating;
}

/** The list item of a task: every listing shows it, explore with the location added. */
export function toTaskListItem(
  task: Pick<
    TaskRecord,
    "id" | "title" | "budget" | "currency" | "status" | "createdAt" | "maxPeople" | "acceptedCount"
  >,
): TaskListItem {
  return {
    id: task.id,
    title: task.title,
    budget: task.budget,
    currency: task.currency,
    status: task.status,
    createdAt: task.createdAt,
    acceptedCount: acceptedOf(task),
    spotsLeft: spotsLeftOf(task),
  };
}

export function toTaskCreated(task: TaskRecord): TaskCreated {
  return {
    id: task.id,
    title: task.title,
    description: task.description,
    budget: task.budget,
    currency: task.currency,
    status: task.status,
    createdAt: task.createdAt,
    location: task.location,
    requirement: task.requirement,
    dueDate: task.dueDate,
    maxPeople: task.maxPeople,
    acceptedCount: acceptedOf(task),
    spotsLeft: spotsLeftOf(task),
    updatedAt: task.updatedAt,
    completedAt: task.completedAt ?? null,
    cancelledAt: task.cancelledAt ?? null,
    cancellation: task.cancellation ?? null,
  };
}

/** The URL of the generated avatar shown for a user without a picture. */
export function defaultAvatarUrl(userId: string): string {
  return `/v1/users/${userId}/avatar.svg`;
}

/** The single task shape; built in one object (every GET by id makes one), members as before. */
export function toTaskDetail(task: TaskRecord, author: TaskAuthor): TaskDetail {
  return {
    id: task.id,
    title: task.title,
    description: task.description,
    budget: task.budget,
    currency: task.currency,
    status: task.status,
    authorFirstName: author.firstName,
    authorProfilePic: author.profilePic ?? defaultAvatarUrl(author.id),
    images: task.images,
    cities: task.location.type === "city" ? [task.location.name] : [],
    createdAt: task.createdAt,
    location: task.location,
    requirement: task.requirement,
    dueDate: task.dueDate,
    maxPeople: task.maxPeople,
    acceptedCount: acceptedOf(task),
    spotsLeft: spotsLeftOf(task),
    updatedAt: task.updatedAt,
    completedAt: task.completedAt ?? null,
    cancelledAt: task.cancelledAt ?? null,
    cancellation: task.cancellation ?? null,
    authorRating: author.rating,
  };
}
