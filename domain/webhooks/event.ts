/**
 * Webhook events: their types, their envelope `{id, type, createdAt, data}` (docs/contract.md section 13)
 * and which endpoints a type reaches.
 */
import { z } from "zod";
import { monotonicFactory } from "ulid";

export const EVENT_TYPES = [
  "task.created",
  "task.updated",
  "task.completed",
  "task.deleted",
  "task.cancelled",
  "api_key.created",
  "api_key.regenerated",
  "api_key.revoked",
  "api_key.expiring",
  "api_key.expired",
  "webhook.test",
  "application.created",
  "application.accepted",
  "application.declined",
  "application.withdrawn",
  "review.published",
  "task.matched",
  "message.created",
] as const;

export const EventType = z.enum(EVENT_TYPES).meta({ id: "EventType" });
export type EventType = z.infer<typeof EventType>;

/**
 * What an endpoint subscribes to: event types, or `["*"]` alone for every type. A union of the
 * two, not a refinement, so the document states the "alone" rule as the service holds it.
 */
export const EventSelection = z.union([
  z.array(z.literal("*")).min(1).max(1),
  z.array(EventType).min(1).transform((types) => [...new Set(types)]),
], { error: 'list event types (see EventType), or use ["*"] alone' })
  .meta({
    id: "EventSelection",
    description: 'Event types to receive, or ["*"] alone for every type',
    example: ["task.created", "task.completed"],
  });
export type EventSelection = z.infer<typeof EventSelection>;

/** One event as delivered: the body of every webhook request. */
export interface WebhookEvent {
  id: string;
  type: EventType;
  createdAt: string;
  data: unknown;
}

const nextUlid = monotonicFactory();

/** A new event, its id `evt_<ulid>` ordered by creation. */
export function newEvent(type: EventType, data: unknown, now: number): WebhookEvent {
  return { id: `evt_${nextUlid(now)}`, type, createdAt: new Date(now).toISOString(), data };
}

/** The ULID part of an event id: events sort by it. */
export function eventUlid(eventId: string): string {
  return eventId.slice(4);
}

/** True when an endpoint (or an account's union of endpoints) selecting `selection` gets `type`. */
export function selects(selection: readonly string[], type: EventType): boolean {
  return selection.includes("*") || selection.includes(type);
}

/** The event a task write raises, from the task before (null: created) and after it. */
export function taskEventType(
  before: { status: string; deletedAt: string | null } | null,
  after: { status: string; deletedAt: string | null },
): EventType {
  if (!before) return "task.created";
  if (after.deletedAt !== null && before.deletedAt === null) return "task.deleted";
  if (after.status === "completed" && before.status !== "completed") return "task.completed";
  if (after.status === "cancelled" && before.status !== "cancelled") return "task.cancelled";
  return "task.updated";
}

/** The event an application's write raises: a new one (pending) is created, else its new status. */
export function applicationEventType(
  status: "pending" | "accepted" | "declined" | "withdrawn",
): EventType {
  return status === "pending" ? "application.created" : `application.${status}`;
}
