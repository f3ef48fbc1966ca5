/**
 * The KV side of a rate-limit lease (kv/rate_limit/rate_limit.ts): the grant's checked atomic, with the
 * lease's record when its block is claimed a slice at a time and the reclaims of run-out leases;
 * the raise of a claim mark; an instance's reclaim of its own records; and the give-back `sum`.
 */
import type { Reclaim } from "../../domain/rate_limit/lease_claims.ts";
import type { GiveBack, Grant, Lease } from "../../domain/rate_limit/lease_ledger_types.ts";
import { slotLeavesAt } from "../../domain/rate_limit/rate_window.ts";
import { commit } from "../commit.ts";
import type { LeaseValue, readWindow } from "./exact_limit.ts";
import { rateLimits } from "../keyspace.ts";
import { dueMarker } from "./rate_sweep.ts";

const U64 = 1n << 64n;

/** One subject of one policy, as its keys name it. */
export interface LeaseSubject {
  policy: string;
  subject: string;
  windowMs: number;
}

/** Takes a lease's unspent (or unclaimed) units off its slot. */
export function giveBack(at: LeaseSubject, back: GiveBack | Reclaim): Deno.KvMutation {
  // A KvU64 sum wraps around: adding 2^64 − n takes off n of the units its grant put there.
  const value = new Deno.KvU64(U64 - BigInt(back.count));
  return { type: "sum", key: rateLimits.slot(at.policy, at.subject, back.slot), value };
}

/** A record is worth keeping until its slot leaves the window (then there is nothing to give). */
function recordLife(slot: number, windowMs: number, now: number): number {
  // KV takes a whole number of milliseconds.
  return Math.max(1_000, Math.ceil(slotLeavesAt(slot, windowMs) - now));
}

/**
 * The atomic of a planned grant, checked against the window's version marker as read: the block
 * added to its slot (and the marker moved), the ended leases' give-backs, the reclaims (each
 * checked against its record, so that its holder's raise and the reclaim never both commit), the
 * lease's record when the block is claimed a slice at a time, and the slot's cleanup marker on
 * this instance's first grant into it (`marked`: the newest slot it granted into). `record` is the
 * new record's id, if any.
 */
export function grantAtomic(
  kv: Deno.Kv,
  at: LeaseSubject & {
    read: Awaited<ReturnType<typeof readWindow>>;
    plan: Grant;
    now: number;
    marked: number;
  },
): { op: Deno.AtomicOperation; record: string | null } {
  const { plan, read, policy, subject } = at;
  const op = kv.atomic()
    .check(read.version)
    .mutate(...plan.backs.map((back) => giveBack(at, back)));
  for (const reclaim of plan.reclaims) {
    const entry = read.records.find((r) => r.key[4] === reclaim.id)!;
    op.check(entry).delete(entry.key);
    if (reclaim.count > 0) op.mutate(giveBack(at, reclaim));
  }
  if (plan.block > 0) {
    op.sum(rateLimits.slot(policy, subject, plan.slot), BigInt(plan.block))
      .sum(rateLimits.version(policy, subject), 1n);
    if (plan.slot > at.marked) {
      const leavesAt = slotLeavesAt(plan.slot, at.windowMs);
      op.mutate(dueMarker({ leavesAt, policy, subject, index: plan.slot }));
    }
  }
  if (plan.claim >= plan.block) return { op, record: null };
  const record = crypto.randomUUID();
  const value: LeaseValue = {
    slot: plan.slot,
    block: plan.block,
    claimed: plan.claim,
    until: plan.until,
  };
  op.set(rateLimits.lease(policy, subject, record), value, {
    expireIn: recordLife(plan.slot, at.windowMs, at.now),
  });
  return { op, record };
}

/**
 * Raises `lease`'s claim mark to `to`, checked against its record: "lost" when the record moved
 * (reclaimed by another instance's grant). The raise that claims the whole block deletes it.
 */
export async function raiseClaim(
  kv: Deno.Kv,
  at: LeaseSubject & { lease: Lease; to: number; now: number },
): Promise<{ to: number; stamp: string | null } | "lost"> {
  const { lease, to } = at;
  const record = lease.record!;
  const key = rateLimits.lease(at.policy, at.subject, record.id);
  const op = kv.atomic().check({ key, versionstamp: record.stamp });
  if (to >= lease.granted) op.delete(key);
  else {
    const value: LeaseValue = {
      slot: lease.slot,
      block: lease.granted,
      claimed: to,
      until: lease.until,
    };
    op.set(key, value, { expireIn: recordLife(lease.slot, at.windowMs, at.now) });
  }
  const result = await commit(op);
  if (!result.ok) return "lost";
  return { to, stamp: to >= lease.granted ? null : result.versionstamp };
}

/**
 * Reclaims one of this instance's own records (at a pause or a stop), checked against the stamp it
 * holds: false when the record had moved, reclaimed already by another instance.
 */
export async function reclaimOwn(
  kv: Deno.Kv,
  at: LeaseSubject & { reclaim: Reclaim & { stamp: string } },
): Promise<boolean> {
  const { reclaim } = at;
  const key = rateLimits.lease(at.policy, at.subject, reclaim.id);
  const op = kv.atomic().check({ key, versionstamp: reclaim.stamp }).delete(key);
  if (reclaim.count > 0) op.mutate(giveBack(at, reclaim));
  return (await commit(op)).ok;
}
