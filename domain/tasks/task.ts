/**
 * Tasks: the request and response shapes (one zod schema each), the stored record, and the
 * rules of visibility and status transitions as plain functions.
 */
import { z } from "zod";
import { countryCodes, currencyCodes, isCountryCode, isCurrencyCode } from "../iso_codes.ts";
import { COASTAL_MARGIN_KM, countryMismatch } from "../geo/country.ts";
import { AppError, notFound } from "../errors.ts";
import { userText, words } from "../validation/text.ts";
import { HttpsUrl } from "../validation/url.ts";
import type { Cancellation } from "../cancellation/cancel_shapes.ts";

export const TASK_STATUSES = ["published", "completed", "cancelled"] as const;
export const TaskStatus = z.enum(TASK_STATUSES).meta({ id: "TaskStatus" });
export type TaskStatus = z.infer<typeof TaskStatus>;

export const LOCATION_TYPES = ["city", "country", "world", "radius"] as const;

/** Largest budget accepted: cents stay exact in a double far beyond it. */
export const MAX_BUDGET = 1_000_000_000_000;

const hasAtMostTwoDecimals = (n: number) => Math.round(n * 100) / 100 === n;

/**
 * How an amount's two decimals are stated: in words, since validators test `multipleOf: 0.01` in
 * binary floating point and would refuse 0.07; no standard keyword counts decimals.
 */
export const TWO_DECIMALS = "At most 2 decimals (stated here only: `multipleOf: 0.01` is " +
  "tested in binary floating point by validators, which then refuse 0.07); more answer 400.";

// The code lists go into the document as enums (the pattern says the shape at a glance), so a
// generated client knows each code the service takes.
const CountryCode = z.string()
  .refine(isCountryCode, "must be an ISO 3166-1 alpha-2 country code in upper case")
  .meta({
    id: "CountryCode",
    description: "An ISO 3166-1 alpha-2 country code in upper case",
    pattern: "^[A-Z]{2}$",
    enum: countryCodes(),
  });

const CurrencyCode = z.string()
  .refine(isCurrencyCode, "must be an ISO 4217 currency code in upper case")
  .meta({
    id: "CurrencyCode",
    description: "An ISO 4217 currency code in upper case (the runtime's current list)",
    pattern: "^[A-Z]{3}$",
    enum: currencyCodes(),
  });

export const Location = z.strictObject({
  coordinates: z.tuple([
    z.number().min(-180).max(180).meta({ description: "longitude: degrees east" }),
    z.number().min(-90).max(90).meta({ description: "latitude: degrees north" }),
  ], { error: "must be [longitude, latitude]" }).meta({
    description: "[longitude, latitude], GeoJSON order: longitude first",
    minItems: 2,
    maxItems: 2,
    example: [2.3522, 48.8566],
  }),
  type: z.enum(LOCATION_TYPES),
  name: userText({ min: 1, max: 200 }),
  countryCode: CountryCode.optional(),
  radiusKm: z.number().min(1).max(500).optional(),
}).superRefine((location, ctx) => {
  if (location.type === "radius" && location.radiusKm === undefined) {
    ctx.addIssue({ code: "custom", path: ["radiusKm"], message: "is required for type radius" });
  }
  if (location.type !== "radius" && location.radiusKm !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["radiusKm"],
      message: "is only allowed for type radius",
    });
  }
}).superRefine((location, ctx) => {
  const mismatch = location.type !== "world" && location.countryCode !== undefined &&
    countryMismatch(location.coordinates, location.countryCode);
  if (mismatch) ctx.addIssue({ code: "custom", path: ["coordinates"], message: mismatch });
}, { when: (payload) => payload.issues.length === 0 }).meta({
  id: "Location",
  description: "Where the task takes place. `coordinates` are [longitude, latitude]. Unless " +
    "`type` is `world`, a given `countryCode` must be the country the coordinates lie in (its " +
    `territories count: GP is also FR), or, for a point at sea, lie within ${COASTAL_MARGIN_KM} ` +
    "km of it; else 400 VALIDATION_ERROR on `location.coordinates`, naming both countries.",
  // The refinement above, stated for clients: radiusKm with type radius and only there.
  if: { properties: { type: { const: "radius" } } },
  then: { required: ["radiusKm"], properties: { radiusKm: { type: "number" } } },
  else: { not: { required: ["radiusKm"], properties: { radiusKm: { type: "number" } } } },
});
export type Location = z.infer<typeof Location>;

/** `YYYY-MM-DD` kept as written, or a full timestamp normalized to UTC with milliseconds. */
const DueDate = z.union([
  z.iso.date(),
  z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString()),
], { error: "must be YYYY-MM-DD or a full ISO 8601 timestamp" });

// The editable fields, without defaults: create adds the defaults, patch makes them optional.
const editable = {
  title: userText({ min: 1, max: 200 }),
  description: userText({ min: 1, max: 10_000, multiline: true }),
  budget: z.number().min(0).max(MAX_BUDGET)
    .refine(hasAtMostTwoDecimals, "must have at most 2 decimals")
    .meta({ description: `In the task's currency. ${TWO_DECIMALS}` }),
  currency: CurrencyCode,
  location: Location,
  requirement: userText({ min: 1, max: 5_000, multiline: true }),
  dueDate: DueDate,
  maxPeople: z.number().int().min(1).max(1_000),
  images: z.array(HttpsUrl).max(10),
};

export const TaskCreate = z.strictObject({
  ...editable,
  dueDate: editable.dueDate.optional(),
  maxPeople: editable.maxPeople.default(1),
  images: editable.images.optional(),
}).meta({ id: "TaskCreate" });
export type TaskCreate = z.infer<typeof TaskCreate>;

export const TaskPatch = z.strictObject(editable).partial().extend({
  dueDate: editable.dueDate.nullable().optional(),
  status: z.literal("completed", { error: 'the only status that can be set is "completed"' })
    .optional(),
}).meta({ id: "TaskPatch" });
export type TaskPatch = z.infer<typeof TaskPatch>;

export const Payment = z.enum(["Paid", "Pro-bono"]).meta({ id: "Payment" });
export type Payment = z.infer<typeof Payment>;

/** Free text of a search: every word must start a word of the title or description. */
export const SearchText = z.string().max(200)
  .describe("Every word must start a word of the title or description (case and accents ignored)");

/** A stored task. Deleted tasks are kept with `deletedAt` and leave every index. */
export interface TaskRecord {
  id: string;
  userId: string;
  title: string;
  description: string;
  budget: number;
  currency: string;
  location: Location;
  requirement: string;
  dueDate: string | null;
  maxPeople: number;
  /** Accepted applications; absent on records written before applications existed (0). */
  acceptedCount?: number;
  images: string[];
  status: TaskStatus;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** When its creator cancelled it; absent on records written before cancellation existed. */
  cancelledAt?: string | null;
  /** Why, as the creator said: set with `cancelledAt`. */
  cancellation?: Cancellation | null;
  deletedAt: string | null;
  /** The ULID that orders the task in every newest-first index. */
  orderKey: string;
  /**
   * The number of the task's last history entry (kv/history/task_history.ts); absent on records
   * written before the history existed, whose history starts after it.
   */
  historySeq?: number;
  /** When that entry is dated: a later one is never dated before it. */
  historyAt?: string;
}

/** A new published task from a validated create body. */
export function newTask(
  input: TaskCreate,
  ids: { id: string; userId: string; orderKey: string },
  at: string,
): TaskRecord {
  return {
    ...ids,
    title: input.title,
    description: input.description,
    budget: input.budget,
    currency: input.currency,
    location: input.location,
    requirement: input.requirement,
    dueDate: input.dueDate ?? null,
    maxPeople: input.maxPeople,
    acceptedCount: 0,
    images: input.images ?? [],
    status: "published",
    createdAt: at,
    updatedAt: at,
    completedAt: null,
    cancelledAt: null,
    cancellation: null,
    deletedAt: null,
  };
}

/** Accepted applications of a task (records older than applications have none). */
export function acceptedOf(task: Pick<TaskRecord, "acceptedCount">): number {
  return task.acceptedCount ?? 0;
}

/** How many more people a task takes. */
export function spotsLeftOf(task: Pick<TaskRecord, "acceptedCount" | "maxPeople">): number {
  return Math.max(0, task.maxPeople - acceptedOf(task));
}

/** The normalized words a search can find a task by: those of its title and description. */
export function searchTerms(task: Pick<TaskRecord, "title" | "description">): string[] {
  return words(`${task.title}\n${task.description}`);
}

/** True when every wanted (query) word is a prefix of some term; no wanted words match all. */
export function matchesTerms(wanted: readonly string[], terms: readonly string[]): boolean {
  return wanted.every((prefix) => terms.some((term) => term.startsWith(prefix)));
}

/** True when the budget falls in the payment class: Paid is budget > 0, Pro-bono is 0. */
export function matchesPayment(budget: number, payment: Payment): boolean {
  return payment === "Paid" ? budget > 0 : budget === 0;
}

export function paymentOf(budget: number): Payment {
  return budget > 0 ? "Paid" : "Pro-bono";
}

/** True while the task exists for anyone (it has not been deleted). */
export function isLive(task: TaskRecord): boolean {
  return task.deletedAt === null;
}

/** True when anyone, anonymous included, may see the task. */
export function isPublic(task: TaskRecord): boolean {
  return isLive(task) && task.status === "published";
}

/** Published tasks are public; a completed one is its creator's alone; a deleted one nobody's. */
export function canSee(task: TaskRecord, viewerId: string | null): boolean {
  return isPublic(task) || (isLive(task) && task.userId === viewerId);
}

/**
 * The task a user may change: someone else's task is 403 when they can see it, else 404, so
 * the answer never reveals a task the caller may not see.
 */
export function assertOwner(task: TaskRecord | null, userId: string): TaskRecord {
  if (!task || !canSee(task, userId)) throw notFound("Task");
  if (task.userId !== userId) {
    throw new AppError("FORBIDDEN", "Only the creator of a task may change or delete it");
  }
  return task;
}

/** Applies a validated patch to a published task; completed and cancelled are final. */
export function applyPatch(task: TaskRecord, patch: TaskPatch, at: string): TaskRecord {
  if (task.status !== "published") {
    throw new AppError("INVALID_TRANSITION", `A ${task.status} task can no longer be changed`);
  }
  const { status, ...fields } = patch;
  const changes = Object.entries(fields).filter(([, value]) => value !== undefined);
  if (changes.length === 0 && status === undefined) return task;
  if (fields.maxPeople !== undefined && fields.maxPeople < acceptedOf(task)) {
    throw new AppError(
      "INVALID_TRANSITION",
      `maxPeople cannot go below the ${acceptedOf(task)} people already accepted`,
    );
  }
  const next: TaskRecord = { ...task, updatedAt: at };
  for (const [name, value] of changes) Object.assign(next, { [name]: value });
  if (status === "completed") {
    next.status = "completed";
    next.completedAt = at;
  }
  return next;
}

/** The task as deleted at `at`. */
export function markDeleted(task: TaskRecord, at: string): TaskRecord {
  return { ...task, deletedAt: at, updatedAt: at };
}
