/**
 * A task's history (docs/contract.md section 20): the entry shape, and which entries a change of
 * the task or of one of its applications records, as plain functions.
 */
import { z } from "zod";
import type { ApplicationStatus } from "../application.ts";
import type { TaskRecord } from "../tasks/task.ts";

export const HISTORY_TYPES = [
  "created",
  "edited",
  "application_accepted",
  "application_withdrawn",
  "completed",
  "cancelled",
] as const;

export const HistoryType = z.enum(HISTORY_TYPES).meta({ id: "TaskHistoryType" });
export type HistoryType = z.infer<typeof HistoryType>;

export const HistoryEntry = z.object({
  at: z.string().describe("When the change committed (ISO 8601, UTC, milliseconds)"),
  type: HistoryType,
  actorId: z.uuid().describe("Who made it: the task's creator, or the applicant who withdrew"),
}).meta({ id: "TaskHistoryEntry" });
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** The fields an edit may change: any of them differing makes the write an edit. */
const EDITABLE: readonly (keyof TaskRecord)[] = [
  "title",
  "description",
  "budget",
  "currency",
  "location",
  "requirement",
  "dueDate",
  "maxPeople",
  "images",
];

function edited(before: TaskRecord, after: TaskRecord): boolean {
  return EDITABLE.some((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

/**
 * What a write of the task itself records, by its creator at `at`: its creation, an edit of any
 * field, its completion or cancellation (an edit and a completion in one PATCH record both, in
 * that order). A deletion records nothing: a deleted task has no history to read.
 */
export function taskHistoryEntries(
  before: TaskRecord | null,
  after: TaskRecord,
  at: string,
): HistoryEntry[] {
  const actorId = after.userId;
  if (!before) return [{ at, type: "created", actorId }];
  const types: HistoryType[] = [];
  if (edited(before, after)) types.push("edited");
  if (after.status !== before.status && after.status !== "published") types.push(after.status);
  return types.map((type) => ({ at, type, actorId }));
}

/**
 * What an application's change records, made by `actorId` at `at`: an acceptance, and the
 * withdrawal of an accepted application (the spot it frees). Other moves leave the task as it is.
 */
export function applicationHistoryEntry(
  change: { from: ApplicationStatus; to: ApplicationStatus; actorId: string; at: string },
): HistoryEntry | null {
  const { from, to, actorId, at } = change;
  if (to === "accepted") return { at, type: "application_accepted", actorId };
  if (from === "accepted" && to === "withdrawn") {
    return { at, type: "application_withdrawn", actorId };
  }
  return null;
}

/** The entry an older task's history starts with, its creation, from the record. */
export function synthesizedCreation(task: TaskRecord): HistoryEntry {
  return { at: task.createdAt, type: "created", actorId: task.userId };
}
