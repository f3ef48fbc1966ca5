/**
 * One subject's request budget as one instance holds it: blocks of units leased from the shared
 * window, spent one request at a time, and what is left of them given back. Pure, so that the rule
 * which keeps a budget exact on any number of instances can be tested alone.
 */
import {
  secondsUntil,
  type SlotCounts,
  slotIndex,
  slotLeavesAt,
  type WindowDecision,
} from "./rate_window.ts";
import { backsOf, blockSize, paceWant } from "./lease_sizing.ts";
import { dueClaim, type LeaseRecord, ownRecords, type Reclaim, sliceOf } from "./lease_claims.ts";
import { decideGrant } from "./grant_decision.ts";
import { WindowView } from "./window_view.ts";

import type { GiveBack, Grant, Lease, LeaseRules } from "./lease_ledger_types.ts";

/** One subject's leases and its last view of the shared window. */
export class LeaseLedger {
  /** The window's slots as last read, plus this instance's grants and give-backs since. */
  readonly #view: WindowView;
  #leases: Lease[] = [];
  /** The newest lease, kept after it ended: its pace sizes the next block. */
  #last: Lease | null = null;
  /** Units handed to a flush to give back, not yet confirmed. */
  #returning = 0;
  /** The block the next grant asks for, learned from how fast the last one was spent. */
  #want = 1;
  /** The last block was cut to its share of what was left: near the limit, nothing ahead. */
  #capped = false;
  /** The last refusal, answered again without a read until `recheckAt`. */
  #refusal: { decision: WindowDecision; recheckAt: number; limit: number } | null = null;

  constructor(private readonly rules: LeaseRules) {
    this.#view = new WindowView(rules.windowMs);
  }

  /** When the window was last read; -Infinity before the first read. */
  get readAt(): number {
    return this.#view.readAt;
  }

  /** Units leased and neither spent nor given back yet. */
  get held(): number {
    let held = 0;
    for (const lease of this.#leases) held += lease.granted - lease.spent;
    return held;
  }

  /** Units claimed and not spent: what stays counted if this instance dies now. */
  get claimedUnspent(): number {
    let units = 0;
    for (const lease of this.#leases) units += lease.claimed - lease.spent;
    return units;
  }

  /** Leases still held, spendable or waiting to be given back. */
  get leases(): number {
    return this.#leases.length;
  }

  /** True when `spend` would answer from memory now (a lease to spend, or a recent refusal). */
  canSpend(now: number, limit: number): boolean {
    let held = 0;
    let live = false;
    for (const l of this.#leases) {
      held += l.granted - l.spent;
      if (now < l.until && l.spent < l.claimed) live = true;
    }
    if (live && this.#view.at(now).used - held < limit) return true;
    const refusal = this.#refusal;
    return refusal !== null && refusal.limit === limit && now < refusal.recheckAt &&
      now < refusal.decision.resetAt;
  }

  /**
   * Spends one unit of a lease valid at `now`, or answers again a refusal younger than its
   * recheck; null when neither: the window must be read and a block granted first.
   */
  spend(now: number, limit: number): WindowDecision | null {
    let lease: Lease | null = null;
    let held = 0;
    for (const l of this.#leases) {
      held += l.granted - l.spent;
      if (lease === null && now < l.until && l.spent < l.claimed) lease = l;
    }
    if (lease) {
      const window = this.#view.at(now);
      // Units spent or held by anyone else; a limit lowered since the grant is honoured too.
      const taken = window.used - held;
      if (taken < limit) {
        // A lease spent out has nothing to give back: it leaves the list (`#last` keeps its pace).
        if (++lease.spent === lease.granted) this.#leases.splice(this.#leases.indexOf(lease), 1);
        // The oldest counted unit, perhaps this one (counted in the current slot or earlier).
        const oldest = Math.min(window.oldest, slotIndex(now, this.rules.windowMs));
        const resetAt = slotLeavesAt(oldest, this.rules.windowMs);
        return {
          allowed: true,
          limit,
          remaining: Math.max(0, limit - taken - 1),
          resetAt,
          resetSeconds: secondsUntil(resetAt, now),
        };
      }
    }
    const refusal = this.#refusal;
    if (
      refusal && refusal.limit === limit && now < refusal.recheckAt &&
      now < refusal.decision.resetAt
    ) {
      const { decision } = refusal;
      return { ...decision, resetSeconds: secondsUntil(decision.resetAt, now) };
    }
    return null;
  }

  /**
   * Decides on a fresh read of the window's slots (every grant by anyone, less what was given
   * back): a block to grant, as large as the last lease's pace asks but at most `share` of what is
   * left; or the refusal, answered again until `recheckMs` has passed.
   */
  plan(
    read: {
      counts: SlotCounts;
      now: number;
      limit: number;
      recheckMs: number;
      /** The lease records read with the window. */
      records?: readonly LeaseRecord[];
    },
  ): Grant | WindowDecision {
    const { counts, now, limit } = read;
    const { windowMs } = this.rules;
    this.#view.read(counts, now);
    // This instance's ended leases go back in the grant's atomic; its unspent units of a live
    // lease (none: a request gets here when every live one is spent) would stay counted.
    const ended = this.#leases.filter((l) => !l.claiming && now >= l.until);
    const { backs, reclaims, decision, left } = decideGrant({
      counts,
      now,
      limit,
      records: read.records ?? [],
      ended,
      mine: () => new Set(this.#leases.flatMap((l) => l.record ? [l.record.id] : [])),
    }, this.rules);
    const slot = slotIndex(now, windowMs);
    if (!decision.allowed || left < 1) {
      const refused = { ...decision, allowed: false, remaining: 0 };
      this.#refusal = { decision: refused, recheckAt: now + read.recheckMs, limit };
      if (reclaims.length === 0) return refused;
      // Nothing to grant, but run-out leases to reclaim: committed alone, then read again.
      this.#leases = this.#leases.filter((l) => !ended.includes(l));
      return { slot, block: 0, claim: 0, reclaims, backs, ended, lasting: false, until: now };
    }
    this.#refusal = null;
    if (this.#last) this.#want = paceWant(this.#last, now, this.rules.leaseMs);
    const size = blockSize(this.rules, {
      now,
      slot,
      left,
      want: this.#want,
      firstLease: this.#last === null,
    });
    this.#capped = size.capped;
    this.#leases = this.#leases.filter((l) => !ended.includes(l));
    const { block, claim, lasting, until } = size;
    return { slot, block, claim, reclaims, backs, ended, lasting, until };
  }

  /** The planned grant's atomic failed: its ended leases wait for the next give-back again. */
  abandon(grant: Grant): void {
    this.#leases.push(...grant.ended);
  }

  /**
   * The planned grant was committed at `now`: its block is held, and counted in this view. `record`
   * names the lease's record when its block is claimed a slice at a time.
   */
  granted(grant: Grant, now: number, record: { id: string; stamp: string } | null = null): void {
    for (const back of [...grant.backs, ...grant.reclaims]) this.#view.add(back.slot, -back.count);
    if (grant.block === 0) return;
    const lease: Lease = {
      slot: grant.slot,
      granted: grant.block,
      spent: 0,
      claimed: grant.claim,
      slice: sliceOf(grant.block, this.rules.slices),
      claiming: false,
      record: grant.claim < grant.block ? record : null,
      grantedAt: now,
      until: grant.until,
    };
    this.#leases.push(lease);
    this.#last = lease;
    this.#view.add(grant.slot, grant.block);
  }

  /**
   * True when `claimDue(now, false)` would answer a lease, without marking it: asked after every
   * spend, which rarely makes a claim due, so the raise's own setup is paid only when it is.
   */
  claimWanted(now: number): boolean {
    return dueClaim(this.#leases, now, false) !== null;
  }

  /**
   * A live lease whose claim mark is due to rise (half its slice spent; all of it when `force`),
   * now marked as being raised, with the mark to raise it to; null when none is due.
   */
  claimDue(now: number, force: boolean): { lease: Lease; to: number } | null {
    const due = dueClaim(this.#leases, now, force);
    if (due) due.lease.claiming = true;
    return due;
  }

  /**
   * A raise is over: `stamp` is its record's new versionstamp (null once the block is claimed
   * whole: the record was deleted); `lost`: the record had been reclaimed, so the lease is spent
   * only up to what it had claimed.
   */
  claimSettled(lease: Lease, outcome: { to: number; stamp: string | null } | "lost"): void {
    lease.claiming = false;
    if (outcome === "lost") {
      // Its unclaimed units went back with the record: no longer this instance's.
      this.#view.add(lease.slot, -(lease.granted - lease.claimed));
      lease.granted = lease.claimed;
      lease.record = null;
    } else {
      lease.claimed = outcome.to;
      lease.record = outcome.stamp && lease.record
        ? { ...lease.record, stamp: outcome.stamp }
        : null;
    }
    if (lease.spent >= lease.granted) this.#leases = this.#leases.filter((l) => l !== lease);
  }

  /** True when no unit can be spent now only because a live lease waits for its next claim. */
  waitsForClaim(now: number): boolean {
    return this.#leases.some((l) => now < l.until && l.spent >= l.claimed && l.claimed < l.granted);
  }

  /**
   * At a flush: the ended leases (all of them when `all`, at a pause or a stop) leave, and their
   * unspent units are to be given back. `settle(false)` keeps them to give back at the next flush.
   */
  giveBack(now: number, all: boolean): {
    backs: GiveBack[];
    /** At a pause, the taken leases' records, whose unclaimed units this instance reclaims. */
    records: (Reclaim & { stamp: string })[];
    settle(ok: boolean): void;
  } {
    const ended = this.#leases.filter((l) => !l.claiming && (all || now >= l.until));
    if (ended.length === 0) return { backs: [], records: [], settle() {} };
    this.#leases = this.#leases.filter((l) => !ended.includes(l));
    const backs = backsOf(ended, this.rules, now);
    for (const back of backs) this.#returning += back.count;
    const { windowMs, keepMs } = this.rules;
    const records = all ? ownRecords(ended, { now, windowMs, keepMs }) : [];
    return {
      backs,
      records,
      settle: (ok) => {
        for (const back of backs) this.#returning -= back.count;
        if (ok) { for (const back of backs) this.#view.add(back.slot, -back.count); }
        // Still counted in the window: given back by the next flush.
        else this.#leases.push(...ended);
      },
    };
  }

  /** A record this instance reclaimed itself (at a pause) is out of the window. */
  reclaimed(reclaim: Reclaim): void {
    this.#view.add(reclaim.slot, -reclaim.count);
  }

  /** The next decision reads the window again instead of repeating the last refusal. */
  forgetRefusal(): void {
    this.#refusal = null;
  }

  /** Units being given back by a flush under way. */
  get returning(): number {
    return this.#returning;
  }

  /** True when a lease in use is nearly spent or ending and the next block should come early. */
  wantsRenewal(now: number, aheadMs: number): boolean {
    if (this.#capped) return false;
    const live = this.#leases.filter((l) => now < l.until && l.spent < l.granted);
    if (live.length === 0) return false;
    const left = live.reduce((sum, l) => sum + l.granted - l.spent, 0);
    const lease = live[live.length - 1];
    // Measured over at least `aheadMs`: a lease's first moments say little about its pace.
    const pace = lease.spent / Math.max(aheadMs, now - lease.grantedAt);
    return lease.until - now < aheadMs || left < pace * aheadMs;
  }
}
