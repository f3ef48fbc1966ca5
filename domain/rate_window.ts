/**
 * Sliding-window arithmetic of the rate limits, pure (no storage, no clock): time is cut into
 * fixed buckets one window long, and the window ending now is estimated as the current bucket's
 * count plus the previous bucket's count weighted by how much of it the window still covers.
 */

/** The counts of the bucket holding `now` and of the one before it. */
export interface WindowCounts {
  previous: number;
  current: number;
}

/** What a limiter answers for one request, in the units the headers need. */
export interface WindowDecision {
  allowed: boolean;
  limit: number;
  /** Requests left after this one (0 when refused). */
  remaining: number;
  /** Seconds until a unit frees (when refused: until a request would be allowed again). */
  resetSeconds: number;
}

// Estimates are fractional; a hair of tolerance keeps float noise from costing a unit.
const EPSILON = 1e-6;

/** The index of the fixed bucket holding `now`. */
export function bucketIndex(now: number, windowMs: number): number {
  return Math.floor(now / windowMs);
}

/** Requests counted in the window ending at `now`: current + previous × uncovered share. */
export function windowEstimate(counts: WindowCounts, now: number, windowMs: number): number {
  const elapsed = now - bucketIndex(now, windowMs) * windowMs;
  return counts.previous * (1 - elapsed / windowMs) + counts.current;
}

/** Milliseconds from `now` until the estimate falls to `target` or below if nothing is added. */
export function msUntilAtMost(
  counts: WindowCounts,
  now: number,
  windowMs: number,
  target: number,
): number {
  const elapsed = now - bucketIndex(now, windowMs) * windowMs;
  const { previous, current } = counts;
  if (windowEstimate(counts, now, windowMs) <= target + EPSILON) return 0;
  if (current <= target) {
    // The previous bucket fades linearly and is gone at the bucket's end, where only
    // `current` is left: the target is reached before then.
    const at = windowMs * (1 - (target - current) / previous);
    return Math.max(0, at - elapsed);
  }
  // Only in the next bucket, where today's `current` becomes the fading previous one.
  const at = windowMs * (1 - Math.max(0, target) / current);
  return windowMs - elapsed + at;
}

/**
 * Decides one request against `limit` per window. An allowed request counts (the answer
 * describes the window with it); a refused one does not.
 */
export function decide(
  counts: WindowCounts,
  now: number,
  windowMs: number,
  limit: number,
): WindowDecision {
  const used = Math.max(0, Math.ceil(windowEstimate(counts, now, windowMs) - EPSILON));
  if (used >= limit) {
    const wait = msUntilAtMost(counts, now, windowMs, limit - 1);
    return {
      allowed: false,
      limit,
      remaining: 0,
      resetSeconds: Math.max(1, Math.ceil(wait / 1000)),
    };
  }
  const after = { previous: counts.previous, current: counts.current + 1 };
  const wait = msUntilAtMost(after, now, windowMs, used);
  return {
    allowed: true,
    limit,
    remaining: limit - used - 1,
    resetSeconds: Math.max(1, Math.ceil(wait / 1000)),
  };
}
