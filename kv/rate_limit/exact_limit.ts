/**
 * Exact rate limits for rare actions (key creation, login attempts): each use reads the window's
 * slots and writes KV, in one checked atomic, so the limit holds under concurrency.
 */
import {
  decide,
  firstSlot,
  slotIndex,
  slotLeavesAt,
  type WindowDecision,
} from "../../domain/rate_limit/rate_window.ts";
import { atomically } from "../commit.ts";
import { rateLimits } from "../keyspace.ts";
import type { LimitPolicy } from "./rate_limit_rules.ts";
import { dueMarker } from "./rate_sweep.ts";

/** A lease's record as stored (`rateLimits.lease`; its id is the key's last part). */
export interface LeaseValue {
  slot: number;
  block: number;
  claimed: number;
  until: number;
}

/** One subject's use of a policy at `now`. */
export interface ExactUse {
  policy: LimitPolicy;
  subject: string;
  now: number;
}

/**
 * The window's slots, the subject's version marker and its leases' records (kv/rate_limit/rate_limit.ts),
 * from one `kv.list` (one snapshot): the marker and the records sort after every slot.
 */
export async function readWindow(kv: Deno.Kv, { policy, subject, now }: ExactUse) {
  const counts = new Map<number, number>();
  const records: Deno.KvEntry<LeaseValue>[] = [];
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
    else if (entry.key.length === 5) records.push(entry as Deno.KvEntry<LeaseValue>);
    else version = entry;
  }
  return { counts, version, records };
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
 * Counts one unit of `use` in `op`, the atomic of the action it limits, checked against the
 * version marker `readWindow` answered (read with the action's own reads, in the same round
 * trip): the unit and the action commit together or not at all, exact as `takeExact` is.
 */
export function countExactIn(
  op: Deno.AtomicOperation,
  use: ExactUse,
  version: Deno.KvEntryMaybe<unknown>,
): Deno.AtomicOperation {
  return countOne(op.check(version), use);
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

/** A unit taken by `holdExact`: kept, it stays counted; released, it is given back. */
export interface Hold {
  decision: WindowDecision;
  /** Gives the unit back (the attempt turned out not to count); a no-op when refused. */
  release(): Promise<void>;
}

/**
 * `takeExact` for an attempt whose outcome decides whether it counts (a login is a failure only
 * once the password is wrong): the unit is taken before the attempt, so attempts in flight count
 * against the limit and concurrent ones never pass it, and is given back when it should not stay.
 */
export async function holdExact(kv: Deno.Kv, use: ExactUse): Promise<Hold> {
  const decision = await takeExact(kv, use);
  const { policy, subject, now } = use;
  const slot = rateLimits.slot(policy.name, subject, slotIndex(now, policy.windowMs));
  let held = decision.allowed;
  return {
    decision,
    async release() {
      if (!held) return;
      held = false;
      await atomically("Too many concurrent requests to complete; try again", async () => {
        const entry = await kv.get<Deno.KvU64>(slot);
        // Gone or empty: the slot left the window (and was swept) while the unit was held.
        if (!entry.value || entry.value.value === 0n) return { value: undefined };
        const op = kv.atomic().check(entry).set(slot, new Deno.KvU64(entry.value.value - 1n));
        return { value: undefined, op };
      });
    },
  };
}
