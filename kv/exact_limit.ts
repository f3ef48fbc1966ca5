/**
 * Exact rate limits for rare actions (key creation, failed logins): each use reads the window's
 * slots and writes KV, in one checked atomic where the limit must hold under concurrency.
 */
import {
  decide,
  firstSlot,
  slotIndex,
  slotLeavesAt,
  type WindowDecision,
} from "../domain/rate_window.ts";
import { atomically, commit } from "./commit.ts";
import { rateLimits } from "./keys.ts";
import type { LimitPolicy } from "./rate_limit.ts";
import { dueMarker } from "./rate_sweep.ts";

/** One subject's use of a policy at `now`. */
export interface ExactUse {
  policy: LimitPolicy;
  subject: string;
  now: number;
}

/**
 * The window's slots and the subject's version marker, from one `kv.list` (one snapshot): the
 * marker sorts after every slot.
 */
async function readWindow(kv: Deno.Kv, { policy, subject, now }: ExactUse) {
  const counts = new Map<number, number>();
  let version: Deno.KvEntryMaybe<unknown> = {
    key: rateLimits.version(policy.name, subject),
    value: null,
    versionstamp: null,
  };
  const entries = kv.list({
    start: rateLimits.slot(policy.name, subject, firstSlot(now, policy.windowMs)),
    end: rateLimits.end(policy.name, subject),
  });
  for await (const entry of entries) {
    const part = entry.key[3];
    if (typeof part === "number") counts.set(part, Number((entry.value as Deno.KvU64).value));
    else version = entry;
  }
  return { counts, version };
}

/** Counts one unit now: the slot's sum, its cleanup marker, and a bump of the version marker. */
function countOne(op: Deno.AtomicOperation, { policy, subject, now }: ExactUse) {
  const index = slotIndex(now, policy.windowMs);
  return op
    .sum(rateLimits.slot(policy.name, subject, index), 1n)
    .sum(rateLimits.version(policy.name, subject), 1n)
    .mutate(
      dueMarker({
        leavesAt: slotLeavesAt(index, policy.windowMs),
        policy: policy.name,
        subject,
        index,
      }),
    );
}

/**
 * An exact limit for rare actions: the window is read and, when allowed, one unit added in one
 * atomic checked against the subject's version marker, which every count bumps, so concurrent
 * callers on any instance (even at different slots) never pass the limit together.
 */
export function takeExact(kv: Deno.Kv, use: ExactUse): Promise<WindowDecision> {
  return atomically("Too many concurrent requests to complete; try again", async () => {
    const { counts, version } = await readWindow(kv, use);
    const { policy, now } = use;
    const decision = decide(counts, now, policy);
    if (!decision.allowed) return { value: decision };
    return { value: decision, op: countOne(kv.atomic().check(version), use) };
  });
}

/** What `takeExact` would answer, without counting anything. */
export async function peekExact(kv: Deno.Kv, use: ExactUse): Promise<WindowDecision> {
  const { counts } = await readWindow(kv, use);
  return decide(counts, use.now, use.policy);
}

/** Counts one event (a failed login) against `policy`, unconditionally. */
export async function countExact(kv: Deno.Kv, use: ExactUse) {
  await commit(countOne(kv.atomic(), use));
}
