/**
 * What the explore planner and its drivers share: a driver (index prefixes and the size the
 * counters give them), the query it plans for, the counter reader, and the helpers both use.
 * A module of its own so that the planner and its drivers import it instead of each other.
 */
import type { ExploreFilters } from "../../../domain/explore.ts";
import { MAX_BATCH, PrefixStream } from "../scan/stream.ts";
import { Work } from "../scan/work.ts";

/** One way to scan for a query's matches: index prefixes merged newest first. */
export interface Driver {
  /** Which index drives, for benchmarks and logs. */
  name: string;
  estimate: number;
  /** An upper bound of the size when the estimate may be far too low (geo). */
  upper?: number;
  /**
   * True when, with a search, every candidate its entries pass costs a document read: to learn
   * its words (geo, country, name), or its card for a filter a word entry cannot check.
   */
  wordsFromDocs: boolean;
  /**
   * True when its first lists are sized by probes around the query's centre (geo, bbox): a plan
   * from memory, which reads no probes, would size them otherwise.
   */
  probed?: boolean;
  /** Lists its streams take beyond one, when the count matters (a word read zone by zone). */
  lists?: number;
  /**
   * Entries its first lists read whole at `depth` (see `streams`), whatever the page takes of
   * them: a word's epochs without a circle, listed whole since their entries are in zone order.
   */
  wholeRead?: (depth: number) => number;
  /** True when it reads only the zones that reach the search circle (a word within a circle). */
  zoned?: boolean;
  /**
   * True when its entries carry no facet (word entries: the payment class only), so that every
   * filter but payment is checked on the document read after them.
   */
  bare?: boolean;
  /**
   * The share of the candidates passing its entries' own check that the final check (on the
   * document: search words, or a bare entry's other filters) is expected to keep: sizes the
   * first documents read and the first refills until the page has measured it. Set by the planner.
   */
  finalShare?: number;
  /**
   * Set where the page should teach the instance's memory the final check's measured share
   * (`PlanMemory.shares`): a search by undriven words alone, whose first lists it sizes.
   */
  learnShare?: (share: number) => void;
  /**
   * Set where a full first page should teach the instance's memory how deep it read its streams
   * (the ones `streams` gave, in that order): a circle alone (`plan/geo/depth.ts`).
   */
  learnDepth?: (streams: PrefixStream[]) => void;
  /**
   * Its streams; `depth`, the share of its entries the page is expected to read (0 to 1), sizes
   * the first lists of the drivers whose counters are exact (geo and bbox size their own, and
   * read `widen` times deeper for a final check that keeps a small share).
   */
  streams: (depth?: number, widen?: number) => PrefixStream[];
}

/** A first batch of at least `batch`, deep enough for `expected` entries (within `MAX_BATCH`). */
export function deepBatch(batch: number, expected: number): number {
  return Math.max(batch, Math.min(MAX_BATCH, Math.ceil(expected) + 1));
}

/** Where the scan starts and how large a page it fills. */
export interface PlanQuery {
  filters: ExploreFilters;
  /** The order key to resume below, or null for the first page. */
  after: string | null;
  limit: number;
  work: Work;
  /**
   * True for a plan made from the instance's memory (`shared/plan_memory.ts`) only, to guess
   * which lists to send early: it reads nothing (no probes), and its counters are remembered.
   */
  dry?: boolean;
}

/** Reads counters (ten keys per getMany); 0 for a counter never written. */
export type CounterReader = (keys: Deno.KvKey[]) => Promise<number[]>;

/**
 * True when a word entry of the query's one word that passes its own check (the payment class)
 * is a match unless its author is hidden: no filter needs its card, no other word its document.
 */
export function entriesSure(filters: ExploreFilters): boolean {
  return filters.search.length === 1 && filters.geo === undefined &&
    filters.bbox === undefined && filters.countryCode === undefined &&
    filters.cityName === undefined && filters.regionName === undefined && !filters.hasSpots;
}

/**
 * `entriesSure` within a circle: a word entry passing its own check is a match when, besides, the
 * position it carries puts the task surely inside the circle (`surelyWithin` in the scan).
 */
export function entriesSureWithin(filters: ExploreFilters): boolean {
  return filters.geo !== undefined && entriesSure({ ...filters, geo: undefined });
}
