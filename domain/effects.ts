/**
 * What a change raises besides itself, as data: its webhook event and its security log entry.
 * kv adds them to the change's own atomic (kv/effects.ts); the rules below compute them.
 */
import type { SecurityDraft } from "./security_log.ts";
import type { EventType } from "./webhooks/event.ts";

/** A change's webhook event (its type and the data the API shows) and security log entry. */
export interface Effects {
  event?: { type: EventType; data: unknown };
  security?: SecurityDraft;
}

/**
 * A pure rule naming what a write raises from the record before it (null: it is new) and after,
 * with what the caller read before the write (`context`): for a write whose record is only known
 * inside the store's retry loop, which applies the rule to the record it read.
 */
export type EffectsRule<R, C> = (before: R | null, after: R, context: C) => Effects;
