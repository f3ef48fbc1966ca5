/**
 * How large a lease is and what of it goes back: a block sized by the last lease's pace and by
 * what the window has left, and the unspent units of ended leases. Pure, beside `LeaseLedger`.
 */
import { type SlotCounts, slotLeavesAt, slotMs } from "./rate_window.ts";
import { sliceOf } from "./lease_claims.ts";
import type { GiveBack, Lease, LeaseRules } from "./lease_ledger_types.ts";

/** A block to grant and how long it lasts. */
export interface BlockSize {
  block: number;
  /** Units claimed at the grant: the whole block or its first slice. */
  claim: number;
  /** Far from the limit: it lasts to its slot's end. */
  lasting: boolean;
  until: number;
  /** The block was cut below what the pace asked: near the limit, nothing is renewed ahead. */
  capped: boolean;
}

/**
 * The block for a grant at `now` into `slot`, with `left` units left in the window, `want` the
 * pace's ask and `firstLease` true for the subject's first lease on this instance.
 */
export function blockSize(
  rules: LeaseRules,
  at: { now: number; slot: number; left: number; want: number; firstLease: boolean },
): BlockSize {
  const { now, slot, left, want } = at;
  const { share, windowMs } = rules;
  // A subject's first block on this instance, far from the limit, covers more than one request:
  // starting from one unit made its first few requests wait for a grant each (two round trips
  // on Deno Deploy). Small next to what is left, so late instances still find units.
  const first = at.firstLease ? Math.floor(left / (share * share)) : 0;
  // Far from the limit a block is at least a `lastingShare` part of what is left and lasts to
  // its slot's end: a subject used now and then waits for a grant about once a slot instead of
  // once a request. Near the limit that part is under one unit, and leases are short again.
  const lastingShare = rules.lastingShare;
  const far = lastingShare ? Math.floor(left / lastingShare) : 0;
  const block = Math.max(1, Math.min(Math.max(want, first, far), Math.floor(left / share)));
  const lasting = far >= 1 && block <= far;
  const slotEnd = slotLeavesAt(slot, windowMs) - windowMs + slotMs(windowMs);
  const until = lasting ? slotEnd : Math.min(slotEnd, now + rules.leaseMs);
  return { block, claim: sliceOf(block, rules.slices), lasting, until, capped: block < want };
}

/**
 * The next block's ask from the newest lease: twice it when spent out (a burst's blocks grow
 * 1, 2, 4, ...), else what its pace spends in a lease's time, never more than twice it.
 */
export function paceWant(last: Lease, now: number, leaseMs: number): number {
  if (last.spent >= last.granted) return 2 * last.granted;
  const elapsed = Math.max(1, Math.min(now, last.until) - last.grantedAt);
  const pace = Math.ceil((last.spent / elapsed) * leaseMs);
  return Math.max(1, Math.min(pace, 2 * last.granted));
}

/** The unspent units of `leases` by slot, leaving out slots too close to leaving the window. */
export function backsOf(leases: readonly Lease[], rules: LeaseRules, now: number): GiveBack[] {
  const { windowMs, keepMs } = rules;
  const bySlot = new Map<number, number>();
  for (const lease of leases) {
    // The unclaimed rest, if any, goes back with the lease's record (`reclaimable`).
    const unspent = lease.claimed - lease.spent;
    if (unspent <= 0 || slotLeavesAt(lease.slot, windowMs) - now < keepMs) continue;
    bySlot.set(lease.slot, (bySlot.get(lease.slot) ?? 0) + unspent);
  }
  return [...bySlot].map(([slot, count]) => ({ slot, count }));
}

/** The window's counts less what `backs` take off. */
export function freedBy(counts: SlotCounts, backs: readonly GiveBack[]): Map<number, number> {
  const freed = new Map(counts);
  for (const { slot, count } of backs) freed.set(slot, (freed.get(slot) ?? 0) - count);
  return freed;
}
