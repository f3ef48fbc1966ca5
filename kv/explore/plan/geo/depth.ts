/**
 * How deep a circle's pages really read, against the even-spread estimate their first lists were
 * sized by: measured by each full first page of a circle alone and remembered by the instance,
 * per radius band, so that the next circle's first lists are read that much deeper (or shallower).
 */
import type { ExploreFilters } from "../../../../domain/explore.ts";
import type { PrefixStream } from "../../scan/stream.ts";
import type { PlanMemory } from "../../shared/plan_memory.ts";

/** The learned depth's bounds: a page far off once should not size every later one. */
const MIN_DEPTH = 0.25;
const MAX_DEPTH = 8;

/**
 * The memory key of an unprobed first page of a circle alone (no other filter, which the geo
 * driver's first lists do not count), by radius band (a factor of two wide); null for others.
 */
export function geoDepthKey(filters: ExploreFilters, probed: boolean): string | null {
  const { geo } = filters;
  if (!geo || probed || filters.search.length > 0 || filters.payment !== undefined) return null;
  if (filters.hasSpots || filters.bbox || filters.countryCode !== undefined) return null;
  if (filters.cityName !== undefined || filters.regionName !== undefined) return null;
  return `geo ${Math.round(Math.log2(Math.max(1, geo.radiusKm)))}`;
}

/**
 * A stream's first batch for `expected` entries (its even-spread share) at the remembered depth,
 * with three standard deviations and one more entry (so that a stream read whole knows it is done);
 * null when the instance has not measured that band yet.
 */
export function learnedBatch(depth: number | undefined, expected: number): number | null {
  if (depth === undefined) return null;
  const mean = depth * expected;
  return Math.ceil(mean + 3 * Math.sqrt(mean)) + 1;
}

/**
 * Remembers the depth a full first page read: the entries it took from its streams over those
 * the even spread expected of them (`expected`, by stream), averaged with the last measured.
 */
export function learnDepth(
  memory: PlanMemory,
  key: string,
  { streams, expected }: { streams: PrefixStream[]; expected: number[] },
): void {
  const planned = expected.reduce((a, b) => a + b, 0);
  if (planned <= 0) return;
  const taken = streams.reduce((n, s) => n + s.taken, 0);
  const measured = Math.min(MAX_DEPTH, Math.max(MIN_DEPTH, taken / planned));
  const last = memory.depths.get(key);
  memory.depths.set(key, last === undefined ? measured : (last + measured) / 2);
}
