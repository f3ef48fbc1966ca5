/**
 * Claiming ahead: what a lease's record in the shared window says (how much of its block its
 * holder may already have spent), how a block is cut into slices claimed one at a time, and what a
 * grant gives back of leases that ran out. Pure: the rule that brings a dead instance's budget
 * back without a write per request is tested alone.
 */
import { slotLeavesAt } from "./rate_window.ts";

/**
 * A lease as its record in the window says: `claimed` of its `block` units may have been spent
 * (its holder spends only units claimed); the rest goes back once `until` has passed, by whoever
 * grants next. Written only for blocks larger than their first slice.
 */
export interface LeaseRecord {
  id: string;
  slot: number;
  block: number;
  claimed: number;
  until: number;
}

/** How blocks are cut into slices: `parts` of a block, never under `min` units. */
export interface SliceRule {
  min: number;
  parts: number;
}

/** Units claimed at a time: a `parts`-th of the block, at least `min`, at most the block. */
export function sliceOf(block: number, rule: SliceRule | undefined): number {
  if (!rule) return block;
  return Math.min(block, Math.max(rule.min, Math.ceil(block / rule.parts)));
}

/**
 * The claim mark to raise to, once half of the current slice is spent (`force`: once all of it
 * is), or null when none is due. So the mark stays at most a slice and a half above what was spent.
 */
export function nextClaim(
  lease: { granted: number; spent: number; claimed: number; slice: number },
  force: boolean,
): number | null {
  const { granted, spent, claimed, slice } = lease;
  if (claimed >= granted) return null;
  const due = force ? spent >= claimed : spent >= claimed - Math.floor(slice / 2);
  return due ? Math.min(granted, claimed + slice) : null;
}

/**
 * The first live lease, not being raised already and with a record, whose claim mark is due to
 * rise (`nextClaim`), with the mark to raise it to; null when none is due.
 */
export function dueClaim<
  L extends {
    claiming: boolean;
    until: number;
    record: unknown;
    granted: number;
    spent: number;
    claimed: number;
    slice: number;
  },
>(leases: readonly L[], now: number, force: boolean): { lease: L; to: number } | null {
  for (const lease of leases) {
    if (lease.claiming || now >= lease.until || !lease.record) continue;
    const to = nextClaim(lease, force);
    if (to !== null) return { lease, to };
  }
  return null;
}

/** Units of a record given back by a reclaim: none when its slot is about to leave the window. */
export interface Reclaim {
  id: string;
  slot: number;
  count: number;
}

/**
 * The records a grant at `now` reclaims: those whose lease has run out and, when `live` (the
 * window is full without them), also the live leases of other instances (not in `mine`), whose
 * holders then spend no further than they had claimed. The largest unclaimed first, at most `max`
 * (each is one check of the grant's atomic). A record's unclaimed units go back unless its slot
 * leaves the window within `keepMs` (a give-back landing on a swept slot would wrap around); the
 * record is deleted either way.
 */
export function reclaimable(
  records: readonly LeaseRecord[],
  at: {
    now: number;
    windowMs: number;
    keepMs: number;
    max: number;
    live?: boolean;
    mine?: ReadonlySet<string>;
  },
): Reclaim[] {
  const { now, windowMs, keepMs, max } = at;
  return records
    .filter((r) => r.until <= now || (at.live === true && !at.mine?.has(r.id)))
    .map((r) => ({
      id: r.id,
      slot: r.slot,
      count: slotLeavesAt(r.slot, windowMs) - now < keepMs ? 0 : Math.max(0, r.block - r.claimed),
    }))
    .sort((a, b) => b.count - a.count)
    .slice(0, max);
}

/**
 * The records of leases this instance gives back at a pause, to reclaim itself: as in
 * `reclaimable`, their unclaimed units go back unless their slot leaves the window within `keepMs`.
 */
export function ownRecords(
  ended: readonly {
    record: { id: string; stamp: string } | null;
    slot: number;
    granted: number;
    claimed: number;
  }[],
  at: { now: number; windowMs: number; keepMs: number },
): (Reclaim & { stamp: string })[] {
  const { now, windowMs, keepMs } = at;
  return ended.flatMap(({ record, slot, granted, claimed }) =>
    record
      ? [{
        id: record.id,
        stamp: record.stamp,
        slot,
        count: slotLeavesAt(slot, windowMs) - now < keepMs ? 0 : granted - claimed,
      }]
      : []
  );
}
