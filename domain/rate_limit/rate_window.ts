/**
 * Sliding-window arithmetic of the rate limits, pure (no storage, no clock): a window is cut into
 * SLOTS_PER_WINDOW sub-buckets ("slots"), and the window ending now counts the slots it holds.
 */

/**
 * Slots per window: one minute of an hour, a second of a minute, 15 s of 15 minutes. A unit counts
 * from its admission until its slot is a whole window old, so for between w − w/60 and w: the
 * limit holds over any span up to w − w/60 long, and `t` never exceeds w. Sixty keeps a subject's
 * refresh to one small `kv.list` (at most 60 entries) while the slack stays under 2 % of w.
 */
export const SLOTS_PER_WINDOW = 60;

/** What a limiter answers for one request, in the units the headers need. */
export interface WindowDecision {
  allowed: boolean;
  limit: number;
  /** Requests left after this one (0 when refused). */
  remaining: number;
  /**
   * When (epoch ms) the oldest counted unit leaves the window; when refused, when a request
   * would be allowed again.
   */
  resetAt: number;
  /** Whole seconds from the decision until `resetAt`, at least 1. */
  resetSeconds: number;
}

/** A budget: `limit` units per sliding window of `windowMs`. */
export interface WindowLimit {
  limit: number;
  windowMs: number;
}

/** Counts of a subject's slots by slot index; slots outside the window are ignored. */
export type SlotCounts = ReadonlyMap<number, number>;

/** The length of one slot of a window. */
export function slotMs(windowMs: number): number {
  return windowMs / SLOTS_PER_WINDOW;
}

/** The index of the slot holding `now`. */
export function slotIndex(now: number, windowMs: number): number {
  return Math.floor(now / slotMs(windowMs));
}

/** The oldest slot the window ending at `now` still holds. */
export function firstSlot(now: number, windowMs: number): number {
  return slotIndex(now, windowMs) - SLOTS_PER_WINDOW + 1;
}

/** When the units of slot `index` leave the window: its start plus one window. */
export function slotLeavesAt(index: number, windowMs: number): number {
  return (index + SLOTS_PER_WINDOW) * slotMs(windowMs);
}

/** Whole seconds from `now` until `at`, at least one (a `Retry-After` or reset). */
export function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}

/**
 * What a decision needs of a window's slots, kept by the shared limiter between requests so that a
 * decision does not walk 60 slots: valid while the window starts at `first` and the slots change
 * only by admissions, which `admit` applies.
 */
export interface WindowTally {
  /** The slots tallied, which only admissions may change while the tally is kept. */
  slots: SlotCounts;
  windowMs: number;
  first: number;
  used: number;
  /** The oldest slot holding a counted unit, Infinity when none. */
  oldest: number;
  /** When refused, when one more fits: found once per tally, not per refused request. */
  freeAt: number | null;
}

/** Tallies the slots of the window ending at `now`. */
export function tally(slots: SlotCounts, now: number, windowMs: number): WindowTally {
  const first = firstSlot(now, windowMs);
  let used = 0;
  let oldest = Infinity;
  for (const [index, count] of slots) {
    if (index < first || count <= 0) continue;
    used += count;
    if (index < oldest) oldest = index;
  }
  return { slots, windowMs, first, used, oldest, freeAt: null };
}

/** Counts one admission at `now` into a tally (its slots got the same unit). */
export function admit(window: WindowTally, now: number) {
  window.used++;
  window.oldest = Math.min(window.oldest, slotIndex(now, window.windowMs));
  window.freeAt = null;
}

/**
 * Decides one request against `limit` per window. An allowed request counts: the answer
 * describes the window with it, so `resetAt` is when the oldest unit counted, perhaps this one,
 * leaves. A refused one does not count; its `resetAt` is when enough units have left for one
 * more.
 */
export function decide(slots: SlotCounts, now: number, rule: WindowLimit): WindowDecision {
  return decideTallied(tally(slots, now, rule.windowMs), now, rule.limit);
}

/** `decide` from a tally of `slots` for the window ending at `now`. */
export function decideTallied(window: WindowTally, now: number, limit: number): WindowDecision {
  const { used, windowMs } = window;
  if (used < limit) {
    const resetAt = slotLeavesAt(Math.min(window.oldest, slotIndex(now, windowMs)), windowMs);
    return {
      allowed: true,
      limit,
      remaining: limit - used - 1,
      resetAt,
      resetSeconds: secondsUntil(resetAt, now),
    };
  }
  window.freeAt ??= freeAt(window, limit, slotIndex(now, windowMs));
  const resetAt = window.freeAt;
  return { allowed: false, limit, remaining: 0, resetAt, resetSeconds: secondsUntil(resetAt, now) };
}

/** When `used − limit + 1` units have left, walking the window's slots from the oldest. */
function freeAt(window: WindowTally, limit: number, current: number): number {
  const { slots, windowMs } = window;
  const indices = [...slots.keys()].filter((i) => i >= window.first).sort((a, b) => a - b);
  let gone = 0;
  for (const index of indices) {
    gone += slots.get(index)!;
    if (gone >= window.used - limit + 1) return slotLeavesAt(index, windowMs);
  }
  return slotLeavesAt(current, windowMs); // a limit of 0: nothing ever fits; say one window
}
