/**
 * What a change raises besides itself, added to the change's own atomic so that both commit or
 * neither does: an event (`raiseEvent`, the one way an event is raised: into the account's live
 * event log, and to its webhooks when one of its endpoints selects the type), and a security log
 * entry.
 *
 * A write takes what it raises as data, never as a callback into the layer above: `DatedEffects`,
 * computed by the caller (with domain's views) before the call when the record written is known
 * then, as for a creation; or, when it depends on the record the write reads inside its retry
 * loop (an edit sees the stored record), `RuledEffects`: a pure domain rule with the data the
 * caller read for it, which the write applies to the record before and after (`applyRule`) each
 * round. A write that adds records of its own to the atomic (history, jobs) takes them the same
 * way, and so does a change's own record: a pure domain transition from the record read
 * (domain/tasks/task_changes.ts, domain/api_key_changes.ts, domain/webhooks/webhook_changes.ts).
 */
import type { Effects, EffectsRule } from "../domain/effects.ts";
import { newEvent, selects, type WebhookEvent } from "../domain/webhooks/event.ts";
import { addJob } from "./jobs/schedule.ts";
import { webhooks } from "./keyspace.ts";
import { recordSecurity } from "./security_log.ts";
import { writeEventBody } from "./webhooks/webhook_event_bodies.ts";
import { logEvent } from "./live/event_log.ts";

/** What a write raises, computed before the call, and the time it is raised at. */
export type DatedEffects = Effects & { now: number };

/** What a write raises when it depends on the record the write reads: domain's rule, its data. */
export interface RuledEffects<R, C> {
  now: number;
  rule: EffectsRule<R, C>;
  context: C;
}

/** The effects `ruled` names for a write from `before` to `after`. */
export function applyRule<R, C>(
  ruled: RuledEffects<R, C>,
  before: R | null,
  after: R,
): DatedEffects {
  return { ...ruled.rule(before, after, ruled.context), now: ruled.now };
}

/** The union of the event types an account's enabled endpoints select. */
export interface Subscription {
  events: string[];
  /** Changes with every rewrite, so that the entry's versionstamp does too. */
  revision: string;
}

/** What one change raises, for whose account and when. */
export interface RaisedEffects extends DatedEffects {
  userId: string;
  /** The account's subscription entry when the caller read it with its own reads. */
  subscriptionRead?: Deno.KvEntryMaybe<unknown>;
}

/**
 * Adds `effects` to `op`, which changes something of `userId`'s at `now`. Reads the account's
 * subscription and checks it in `op`: if an endpoint is added or changed before `op` commits,
 * the commit fails and the caller's round runs again with the new subscription. Returns the
 * event queued for the account's webhooks, if any (every event reaches its live log).
 */
export async function addEffects(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  effects: RaisedEffects,
): Promise<WebhookEvent | null> {
  const { userId, subscriptionRead } = effects;
  if (effects.security) recordSecurity(op, userId, { ...effects.security, now: effects.now });
  if (!effects.event) return null;
  const key = webhooks.subscription(userId);
  const subscription = subscriptionRead && sameKey(subscriptionRead.key, key)
    ? subscriptionRead as Deno.KvEntryMaybe<Subscription>
    : await kv.get<Subscription>(key);
  op.check(subscription);
  const event = newEvent(effects.event.type, effects.event.data, effects.now);
  const toWebhooks = selects(subscription.value?.events ?? [], effects.event.type);
  raiseEvent(op, userId, event, { webhooks: toWebhooks });
  return toWebhooks ? event : null;
}

/**
 * The one way an event is raised, in the atomic of the change that raises it: into the account's
 * live event log (its streams, docs/live-events.md), and with `webhooks` (one of the account's
 * enabled endpoints selects the type) its body and fan-out job. A new event type raised here
 * reaches both without more code.
 */
export function raiseEvent(
  op: Deno.AtomicOperation,
  userId: string,
  event: WebhookEvent,
  to: { webhooks: boolean },
) {
  // A body too large for one value is stored once, in parts both halves read.
  if (to.webhooks) queueEvent(op, userId, event);
  logEvent(op, userId, event, { partsWritten: to.webhooks });
}

/**
 * The key `addEffects` reads for `userId`: a write that reads other entries first reads it with
 * them (one `getMany`, one round trip on Deno Deploy) and passes the entry in.
 */
export function subscriptionKey(userId: string): Deno.KvKey {
  return webhooks.subscription(userId);
}

function sameKey(a: Deno.KvKey, b: Deno.KvKey): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

/**
 * Stores `event`'s body and the job of its fan-out to the account's endpoints, in `op`: the
 * webhook half of `raiseEvent`, alone only for what an older version raised (its queue's drain).
 */
export function queueEvent(op: Deno.AtomicOperation, userId: string, event: WebhookEvent) {
  const unstored = writeEventBody(op, event);
  addJob(op, {
    kind: "webhook_event",
    userId,
    eventId: event.id,
    eventType: event.type,
    ...(unstored ? { unstored } : {}),
  });
}
