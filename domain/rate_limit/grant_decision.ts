/**
 * What a fresh read of the shared window leaves to grant: the give-backs and reclaims that go in
 * the grant's atomic, the window they leave, and the decision on it. Pure, beside `LeaseLedger`.
 */
import { decide, type SlotCounts, tally, type WindowDecision } from "./rate_window.ts";
import { backsOf, freedBy } from "./lease_sizing.ts";
import { type LeaseRecord, type Reclaim, reclaimable } from "./lease_claims.ts";
import type { GiveBack, Lease, LeaseRules } from "./lease_ledger_types.ts";

/** The window as a grant would leave it, and whether a unit may be granted on it. */
export interface GrantDecision {
  backs: GiveBack[];
  reclaims: Reclaim[];
  decision: WindowDecision;
  /** Units left under the limit once the give-backs and reclaims are counted out. */
  left: number;
}

/**
 * Decides on `counts` read at `now`: this instance's `ended` leases go back, and leases of any
 * instance that ran out give back their unclaimed units; when the window is full even so, other
 * instances' live leases (not in `mine`) give up their unclaimed units too.
 */
export function decideGrant(
  read: {
    counts: SlotCounts;
    now: number;
    limit: number;
    records: readonly LeaseRecord[];
    ended: readonly Lease[];
    mine: () => ReadonlySet<string>;
  },
  rules: LeaseRules,
): GrantDecision {
  const { counts, now, limit, records } = read;
  const { windowMs } = rules;
  const backs = backsOf(read.ended, rules, now);
  const at = { now, windowMs, keepMs: rules.keepMs, max: rules.maxReclaims ?? 0 };
  let reclaims = reclaimable(records, at);
  let freed = freedBy(counts, [...backs, ...reclaims]);
  let decision = decide(freed, now, { limit, windowMs });
  if (!decision.allowed && at.max > 0) {
    const more = reclaimable(records, { ...at, live: true, mine: read.mine() });
    if (more.some((r) => r.count > 0)) {
      reclaims = more;
      freed = freedBy(counts, [...backs, ...reclaims]);
      decision = decide(freed, now, { limit, windowMs });
    }
  }
  const left = limit - tally(freed, now, windowMs).used;
  return { backs, reclaims, decision, left };
}
