/**
 * What an instance remembers of the explore plans it made: the counters and the dictionary
 * expansions it last read. Never an answer: a plan made from them only chooses which lists to
 * send early, beside the fresh reads the real plan is made from (see `plan/early_lists.ts`);
 * the payment classes' counts alone price real plans between fresh reads (`plan/counters.ts`).
 */
import { Recent } from "../../store/recent.ts";
import { keptOnHandle } from "../../store/handle.ts";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { geohashEncode } from "../../../domain/geo/geohash.ts";
import { COUNT_PRECISION } from "../index/entries.ts";
import type { ProbeCount } from "./density.ts";

/**
 * One dictionary word in one epoch and zone, and how many tasks it held there when last read:
 * an estimate (the word's count in the zone at its epoch's share of the word), since the
 * counters count by (word, zone) and (word, epoch) apart.
 */
export interface ZoneCount {
  word: string;
  epoch: string;
  zone: string;
  size: number;
}

/**
 * A query word's expansion as the dictionary gives it: each word it starts, with its counts by
 * zone and by epoch (the cells, `ZoneCount`, are their product, computed for each plan: an
 * instance keeps the counts, which grow with the zones plus the epochs, not their product).
 */
export interface WordCounts {
  word: string;
  zones: [zone: string, size: number][];
  epochs: [epoch: string, size: number][];
}

/** Most counters remembered (a 100 km circle reads about fifty). */
const MAX_COUNTERS = 8192;
/** Most query words whose expansion is remembered. */
const MAX_EXPANSIONS = 512;
/** Most searches by undriven words whose measured share is remembered. */
const MAX_SHARES = 512;
/** Most probe cells whose last count is remembered (up to three a page). */
const MAX_PROBES = 4096;
/** Most (word, zone) and (word, epoch) counts over every remembered expansion. */
const MAX_ZONE_COUNTS = 32768;

/** One instance's memory of its explore plans, bounded in keys and in (word, zone) counts. */
export class PlanMemory {
  /** Counter values by key id (`keyId`). */
  readonly counters = new Recent<number>(MAX_COUNTERS, MAX_COUNTERS, () => 1);
  /** A query word's counts; null when it started too many words to drive a scan. */
  readonly expansions = new Recent<WordCounts[] | null>(
    MAX_EXPANSIONS,
    MAX_ZONE_COUNTS,
    (v) => 1 + (v ?? []).reduce((n, w) => n + w.zones.length + w.epochs.length, 0),
  );
  /**
   * The share of documents a search by words that drive no scan last kept, by `undrivenKey`:
   * `the` is in most tasks, `help` in few, where the planner can only assume one share for both.
   */
  readonly shares = new Recent<number>(MAX_SHARES, MAX_SHARES, () => 1);
  /** How deep circles' first pages read against their even spread (`plan/geo/depth.ts`). */
  readonly depths = new Recent<number>(MAX_SHARES, MAX_SHARES, () => 1);
  /**
   * What a probe (a nearest walk's, a small circle's or box's) last found in its cell, by
   * geohash: `probes.ts` leaves out the finer probes that would add nothing, and for a
   * while the coarser ones that overflowed.
   */
  readonly probes = new Recent<RememberedProbe>(MAX_PROBES, MAX_PROBES, () => 1);
  /**
   * The probe counts a small circle or box last sized its lists by, by the geohash of the
   * coarsest probe's cell, and the pages that have used them since (`probes.ts`).
   */
  readonly densities = new Recent<ProbeDensity>(MAX_PROBES, MAX_PROBES, () => 1);
  /** Plans since the payment classes' counts were last read fresh (`plan/counters.ts`). */
  classCountsAge = 0;
}

/**
 * A probe's last read: the entries found (at most its limit), whether that was all, and the pages
 * that have left it out since.
 */
export interface RememberedProbe {
  found: number;
  whole: boolean;
  skips: number;
}

/** Probe counts remembered for the places in one cell, and the pages that have used them. */
export interface ProbeDensity {
  counts: ProbeCount[];
  uses: number;
}

/** The memory key of a search by undriven words alone (with `hasSpots`, which the share counts). */
export function undrivenKey(search: string[], hasSpots: boolean | undefined): string {
  return `${[...search].sort().join(" ")}${hasSpots ? " +spots" : ""}`;
}

/**
 * The memory key of the share of a word's candidates in the zones that reach a circle that the
 * circle keeps (`PlanMemory.shares`): a search by one driving word within a circle, with no
 * other filter but payment (which its entries check), by radius band (a factor of two wide) and
 * the word zone of its centre: a circle on a city keeps most of its zones' tasks, one in the
 * country around it few.
 */
export function circleShareKey(filters: ExploreFilters): string | null {
  const { geo } = filters;
  if (!geo || filters.search.length !== 1 || filters.hasSpots || filters.bbox) return null;
  if (filters.countryCode !== undefined || filters.cityName !== undefined) return null;
  if (filters.regionName !== undefined) return null;
  const band = Math.round(Math.log2(Math.max(1, geo.radiusKm)));
  return `circle ${band} ${geohashEncode(geo.lon, geo.lat, COUNT_PRECISION)}`;
}

/** Remembers a measured share, averaged with the last one measured under the same key. */
export function learnShare(memory: PlanMemory, key: string, measured: number): void {
  const last = memory.shares.get(key);
  memory.shares.set(key, last === undefined ? measured : (last + measured) / 2);
}

const MEMORY = Symbol("explore plan memory");

/**
 * The plan memory of the instance that holds this store handle (one per handle), kept on the
 * handle itself: a request's view of the store (the key guard's, a view whose commits wait for a
 * grant) names or forwards to the handle it wraps, so every request shares the one memory.
 */
export function planMemory(kv: Deno.Kv): PlanMemory {
  return keptOnHandle(kv, MEMORY, () => new PlanMemory());
}
