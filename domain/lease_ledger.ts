/**
 * One subject's request budget as one instance holds it: blocks of units leased from the shared
 * window, spent one request at a time, and what is left of them given back. Pure, so that the rule
 * which keeps a budget exact on any number of instances can be tested alone.
 */
import {
  decide,
  firstSlot,
  secondsUntil,
  type SlotCounts,
  slotIndex,
  slotLeavesAt,
  slotMs,
  tally,
  type WindowDecision,
  type WindowTally,
} from "./rate_window.ts";

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
}

/** Units leased from the shared window: counted there at the grant, in the grant's slot. */
interface Lease {
  slot: number;
  granted: number;
  spent: number;
  grantedAt: number;
  /** Spent only before this instant: the grant's slot ends, or (unless lasting) `leaseMs` passes. */
  until: number;
}

/** Units to add to the window's current slot, in one atomic checked against the window's read. */
export interface Grant {
  slot: number;
  block: number;
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

/** One subject's leases and its last view of the shared window. */
export class LeaseLedger {
  /** The window's slots as last read, plus this instance's grants and give-backs since. */
  #counts = new Map<number, number>();
  #tally: WindowTally | null = null;
  #leases: Lease[] = [];
  /** The newest lease, kept after it ended: its pace sizes the next block. */
  #last: Lease | null = null;
  /** Units handed to a flush to give back, not yet confirmed. */
  #returning = 0;
  /** The block the next grant asks for, learned from how fast the last one was spent. */
  #want = 1;
  /** The last block was cut to its share of what was left: near the limit, nothing ahead. */
  #capped = false;
  #readAt = -Infinity;
  /** The last refusal, answered again without a read until `recheckAt`. */
  #refusal: { decision: WindowDecision; recheckAt: number; limit: number } | null = null;

  constructor(private readonly rules: LeaseRules) {}

  /** When the window was last read; -Infinity before the first read. */
  get readAt(): number {
    return this.#readAt;
  }

  /** Units leased and neither spent nor given back yet. */
  get held(): number {
    let held = 0;
    for (const lease of this.#leases) held += lease.granted - lease.spent;
    return held;
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
      if (now < l.until && l.spent < l.granted) live = true;
    }
    if (live && this.#window(now).used - held < limit) return true;
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
      if (lease === null && now < l.until && l.spent < l.granted) lease = l;
    }
    if (lease) {
      const window = this.#window(now);
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
    read: { counts: SlotCounts; now: number; limit: number; recheckMs: number },
  ): Grant | WindowDecision {
    const { counts, now, limit } = read;
    const { windowMs, share } = this.rules;
    this.#counts = new Map(counts);
    this.#tally = null;
    this.#readAt = now;
    // This instance's ended leases go back in the grant's atomic; its unspent units of a live
    // lease (none: a request gets here when every live one is spent) would stay counted.
    const ended = this.#leases.filter((l) => now >= l.until);
    const backs = this.#backsOf(ended, now);
    const freed = new Map(counts);
    for (const { slot, count } of backs) freed.set(slot, (freed.get(slot) ?? 0) - count);
    const decision = decide(freed, now, { limit, windowMs });
    const left = limit - tally(freed, now, windowMs).used;
    if (!decision.allowed || left < 1) {
      const refused = { ...decision, allowed: false, remaining: 0 };
      this.#refusal = { decision: refused, recheckAt: now + read.recheckMs, limit };
      return refused;
    }
    this.#refusal = null;
    this.#learnPace(now);
    // A subject's first block on this instance, far from the limit, covers more than one request:
    // starting from one unit made its first few requests wait for a grant each (two round trips
    // on Deno Deploy). Small next to what is left, so late instances still find units.
    const first = this.#last === null ? Math.floor(left / (share * share)) : 0;
    // Far from the limit a block is at least a `lastingShare` part of what is left and lasts to
    // its slot's end: a subject used now and then waits for a grant about once a slot instead of
    // once a request. Near the limit that part is under one unit, and leases are short again.
    const lastingShare = this.rules.lastingShare;
    const far = lastingShare ? Math.floor(left / lastingShare) : 0;
    const block = Math.max(
      1,
      Math.min(Math.max(this.#want, first, far), Math.floor(left / share)),
    );
    this.#capped = block < this.#want;
    this.#leases = this.#leases.filter((l) => !ended.includes(l));
    const lasting = far >= 1 && block <= far;
    return { slot: slotIndex(now, windowMs), block, backs, ended, lasting };
  }

  /** The planned grant's atomic failed: its ended leases wait for the next give-back again. */
  abandon(grant: Grant): void {
    this.#leases.push(...grant.ended);
  }

  /** The planned block was committed at `now`: it is held, and counted in this view. */
  granted(grant: Grant, now: number): void {
    const { windowMs, leaseMs } = this.rules;
    const slotEnd = slotLeavesAt(grant.slot, windowMs) - windowMs + slotMs(windowMs);
    const lease = {
      slot: grant.slot,
      granted: grant.block,
      spent: 0,
      grantedAt: now,
      until: grant.lasting ? slotEnd : Math.min(slotEnd, now + leaseMs),
    };
    this.#leases.push(lease);
    this.#last = lease;
    this.#add(grant.slot, grant.block);
    for (const back of grant.backs) this.#add(back.slot, -back.count);
  }

  /**
   * At a flush: the ended leases (all of them when `all`, at a pause or a stop) leave, and their
   * unspent units are to be given back. `settle(false)` keeps them to give back at the next flush.
   */
  giveBack(now: number, all: boolean): { backs: GiveBack[]; settle(ok: boolean): void } {
    const ended = this.#leases.filter((l) => all || now >= l.until);
    if (ended.length === 0) return { backs: [], settle() {} };
    this.#leases = this.#leases.filter((l) => !ended.includes(l));
    const backs = this.#backsOf(ended, now);
    for (const back of backs) this.#returning += back.count;
    return {
      backs,
      settle: (ok) => {
        for (const back of backs) this.#returning -= back.count;
        if (ok) { for (const back of backs) this.#add(back.slot, -back.count); }
        // Still counted in the window: given back by the next flush.
        else this.#leases.push(...ended);
      },
    };
  }

  /** The unspent units of `leases` by slot, leaving out slots too close to leaving the window. */
  #backsOf(leases: Lease[], now: number): GiveBack[] {
    const { windowMs, keepMs } = this.rules;
    const bySlot = new Map<number, number>();
    for (const lease of leases) {
      const unspent = lease.granted - lease.spent;
      if (unspent <= 0 || slotLeavesAt(lease.slot, windowMs) - now < keepMs) continue;
      bySlot.set(lease.slot, (bySlot.get(lease.slot) ?? 0) + unspent);
    }
    return [...bySlot].map(([slot, count]) => ({ slot, count }));
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

  /**
   * Sets the next block from the newest lease: twice it when spent out (a burst's blocks grow
   * 1, 2, 4, ...), else what its pace spends in a lease's time, never more than twice it.
   */
  #learnPace(now: number) {
    const last = this.#last;
    if (!last) return;
    if (last.spent >= last.granted) {
      this.#want = 2 * last.granted;
      return;
    }
    const elapsed = Math.max(1, Math.min(now, last.until) - last.grantedAt);
    const pace = Math.ceil((last.spent / elapsed) * this.rules.leaseMs);
    this.#want = Math.max(1, Math.min(pace, 2 * last.granted));
  }

  #add(slot: number, count: number) {
    const next = (this.#counts.get(slot) ?? 0) + count;
    if (next > 0) this.#counts.set(slot, next);
    else this.#counts.delete(slot);
    this.#tally = null;
  }

  #window(now: number): WindowTally {
    const { windowMs } = this.rules;
    let window = this.#tally;
    if (window === null || window.first !== firstSlot(now, windowMs)) {
      window = this.#tally = tally(this.#counts, now, windowMs);
    }
    return window;
  }
}
