/**
 * Who may hear which webhook event: each type declares what reading its data takes, and an
 * endpoint hears a type only while the caller that chose its URL and events may read it.
 */
import type { Principal, Scope } from "../auth.ts";
import { AppError } from "../errors.ts";
import type { EventType } from "./event.ts";

/** What reading an event's data takes: a session, a scope, or nothing beyond the endpoint. */
export type EventReader = "session" | Scope | null;

/**
 * One entry per event type, so that a new type cannot be added without saying who may hear it.
 * Key metadata is for sessions only, as `/keys` is; the rest follows the scope of the matching
 * GET; `webhook.test` carries only the endpoint's own view.
 */
export const EVENT_READERS: { readonly [T in EventType]: EventReader } = {
  "task.created": "tasks:read",
  "task.updated": "tasks:read",
  "task.completed": "tasks:read",
  "task.deleted": "tasks:read",
  "task.cancelled": "tasks:read",
  "api_key.created": "session",
  "api_key.regenerated": "session",
  "api_key.revoked": "session",
  "api_key.expiring": "session",
  "api_key.expired": "session",
  "webhook.test": null,
  "application.created": "applications:read",
  "application.accepted": "applications:read",
  "application.declined": "applications:read",
  "application.withdrawn": "applications:read",
  "review.published": "reviews:read",
  "task.matched": "alerts:read",
  "message.created": "messages:read",
};

/** Who chose an endpoint's URL and events: their rights bound what it hears. */
export type Grantor = { via: "session" } | { via: "api_key"; keyId: string };

/** A grantor's rights now: a session's, a live key's scopes, or none (key revoked or expired). */
export type Grant = { via: "session" } | { via: "api_key"; scopes: readonly Scope[] } | {
  via: "none";
};

export const NO_GRANT: Grant = { via: "none" };

/** The grantor an endpoint records for a change made by `principal`. */
export function grantorOf(principal: Principal): Grantor {
  // A key principal always names its key; were one not to, it grants nothing rather than all.
  return principal.via === "session"
    ? { via: "session" }
    : { via: "api_key", keyId: principal.keyId ?? "" };
}

/** The rights of a caller making a change now. */
export function grantOf(principal: Principal): Grant {
  return principal.via === "session"
    ? { via: "session" }
    : { via: "api_key", scopes: principal.scopes };
}

/** What `grant` lacks to read `type`: "session", a scope, or null when nothing is missing. */
export function missingFor(grant: Grant, type: EventType): "session" | Scope | null {
  const needs = EVENT_READERS[type];
  if (needs === null || grant.via === "session") return null;
  if (grant.via === "none" || needs === "session") return needs;
  return grant.scopes.includes(needs) ? null : needs;
}

/** True when an endpoint granted `grant` may hear `type`. */
export function mayHear(grant: Grant, type: EventType): boolean {
  return missingFor(grant, type) === null;
}

/**
 * The first event type of a selection that `grant` may not read, with what it lacks; null when
 * it may read them all. `["*"]` names no type: it means every type the grantor may read.
 */
export function firstUnreadable(
  grant: Grant,
  selection: readonly string[],
): { type: EventType; needs: "session" | Scope } | null {
  for (const type of selection) {
    if (!(type in EVENT_READERS)) continue;
    const needs = missingFor(grant, type as EventType);
    if (needs !== null) return { type: type as EventType, needs };
  }
  return null;
}

/**
 * The grantor an endpoint records for `principal` selecting `events`, who must be able to read
 * every type selected (`["*"]` means those it may): 403 naming what is missing.
 */
export function grantorFor(principal: Principal, events: readonly string[]): Grantor {
  const unreadable = firstUnreadable(grantOf(principal), events);
  if (unreadable?.needs === "session") {
    throw new AppError(
      "SESSION_REQUIRED",
      `Only a session token may subscribe to ${unreadable.type}: API key events are for sessions`,
      { scope: "session" },
    );
  }
  if (unreadable) {
    throw new AppError(
      "SCOPE_INSUFFICIENT",
      `This API key lacks the scope ${unreadable.needs}, needed to receive ${unreadable.type}`,
      { scope: unreadable.needs },
    );
  }
  return grantorOf(principal);
}
