/**
 * The lease ledger's data: the rules that size and hold leases, a lease, a grant to commit and a
 * give-back to flush (the rules that use them are in `domain/rate_limit/lease_ledger.ts`).
 */
import type { Reclaim, SliceRule } from "./lease_claims.ts";

/** How an instance sizes and holds its leases. */
export interface LeaseRules {
  windowMs: number;
  /**
   * The longest a lease may be spent from, unless far from the limit (`Grant.lasting`: to its
   * slot's end); what is left then goes back.
   */
  leaseMs: number;
  /**
   * A block is at most this share of what the window has left (at least one unit): blocks are
   * large far from the limit and a single unit near it.
   */
  share: number;
  /**
   * A block of at most this share of what the window has left (and at least one unit) is far
   * from the limit: it lasts to its slot's end (`Grant.lasting`). None when absent.
   */
  lastingShare?: number;
  /**
   * Units of a slot that leaves the window sooner than this are not given back: they stay counted
   * until it leaves. (A give-back is a wrapping sum: one landing on a slot already swept would
   * count nearly 2^64.)
   */
  keepMs: number;
  /**
   * Blocks larger than a slice are claimed a slice at a time (`domain/rate_limit/lease_claims.ts`), so that a
   * dead instance keeps counted only what it claimed. None: a block is claimed whole at its grant.
   */
  slices?: SliceRule;
  /** Records of ended leases a grant reclaims at most (each is a check of its atomic). */
  maxReclaims?: number;
}

/** Units leased from the shared window: counted there at the grant, in the grant's slot. */
export interface Lease {
  slot: number;
  granted: number;
  spent: number;
  /** Units that may be spent: claimed in the lease's record (all of them when it has none). */
  claimed: number;
  slice: number;
  /** A raise of `claimed` under way. */
  claiming: boolean;
  /** Its record in the window and the record's versionstamp, while its unclaimed units have one. */
  record: { id: string; stamp: string } | null;
  grantedAt: number;
  /** Spent only before this instant: the grant's slot ends, or (unless lasting) `leaseMs` passes. */
  until: number;
}

/** Units to add to the window's current slot, in one atomic checked against the window's read. */
export interface Grant {
  slot: number;
  /** Units to count; 0 when the grant only reclaims (the window is full even without them). */
  block: number;
  /** Units claimed at the grant: the whole block, or its first slice (then a record is written). */
  claim: number;
  /** Run-out leases of any instance whose unclaimed units go back in the same atomic. */
  reclaims: Reclaim[];
  /** When the lease ends. */
  until: number;
  /** This instance's ended leases, given back in the same atomic: the block may use them. */
  backs: GiveBack[];
  /** The ended leases taken for `backs`, held back by `abandon` if the atomic fails. */
  ended: Lease[];
  /** Far from the limit: the lease lasts to its slot's end instead of `leaseMs`. */
  lasting: boolean;
}

/** Unspent units of an ended lease, to be taken off their slot. */
export interface GiveBack {
  slot: number;
  count: number;
}
