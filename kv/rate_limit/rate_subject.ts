/**
 * A subject of the shared rate limiter as one instance holds it in memory: its lease ledger and
 * the work under way for it (a grant, a claim, a read ahead).
 */
import { LeaseLedger } from "../../domain/rate_limit/lease_ledger.ts";
import type { SliceRule } from "../../domain/rate_limit/lease_claims.ts";
import type { WindowDecision } from "../../domain/rate_limit/rate_window.ts";
import type { readWindow } from "./exact_limit.ts";
import type { LeaseSubject } from "./lease_records.ts";
import {
  KEEP_MS,
  LASTING_SHARE,
  LEASE_MS,
  type LimitPolicy,
  MAX_RECLAIMS,
  SHARE,
  SLICES,
} from "./rate_limit_rules.ts";

/** A subject in memory: its leases and view of the window (see `LeaseLedger`). */
export interface Subject {
  policy: LimitPolicy;
  id: string;
  ledger: LeaseLedger;
  /** When it was last used: while that is recent, the background renews its lease ahead. */
  usedAt: number;
  /** The grant under way, which every request of the subject waits on. */
  granting: Promise<WindowDecision | null> | null;
  /** The newest slot this instance has granted into (and so given a sweep marker). */
  marked: number;
  /** A read of the window started ahead of the subject's first decision (`prefetch`). */
  prefetched: { at: number; read: ReturnType<typeof readWindow> } | null;
  /** The raise of a lease's claim mark under way, which requests out of claimed units wait on. */
  claiming: Promise<void> | null;
}

/**
 * A subject seen for the first time. `slices`: how blocks are claimed ahead (undefined: the
 * house's rule; null: whole at the grant, for the cost bench's comparison).
 */
export function newSubject(
  policy: LimitPolicy,
  id: string,
  slices: SliceRule | null | undefined,
): Subject {
  return {
    policy,
    id,
    ledger: new LeaseLedger({
      windowMs: policy.windowMs,
      leaseMs: LEASE_MS,
      share: SHARE,
      lastingShare: LASTING_SHARE,
      keepMs: KEEP_MS,
      slices: slices === undefined ? SLICES : slices ?? undefined,
      maxReclaims: MAX_RECLAIMS,
    }),
    usedAt: -Infinity,
    granting: null,
    marked: -Infinity,
    prefetched: null,
    claiming: null,
  };
}

/** The names a subject's keys are built from. */
export function leaseSubject({ policy, id }: Subject): LeaseSubject {
  return { policy: policy.name, subject: id, windowMs: policy.windowMs };
}
