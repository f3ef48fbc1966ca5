/**
 * A nearest-first page's shapes and the bounds its walk (`nearest_page.ts`) keeps to: where a
 * page ends, what it asks, when a cell is split or read whole, how far a cell's points can lie.
 */
import type { ExploreFilters, ExploreItem } from "../../../domain/explore.ts";
import { EARTH_RADIUS_KM, type GeoBox } from "../../../domain/geo/geo.ts";
import { DOC_COST, ENTRY_COST, LIST_COST } from "../scan/work.ts";
import type { NearestWork } from "./reads.ts";

/** Where a page ended: the last item's exact distance (km) and order key. */
export interface NearestPosition {
  d: number;
  key: string;
}

/** One nearest-first page's request. */
export interface NearestQuery extends NearestOptions {
  /** With a geo query: distances are measured from its centre. */
  filters: ExploreFilters;
  /** Where the previous page ended; null or absent for the first page. */
  after?: NearestPosition | null;
  limit: number;
}

export interface NearestOptions {
  /** See `SPLIT_ABOVE`; tests lower it to walk the finest cells on a small store. */
  splitAbove?: number;
  /** Storage work (units of scan/stream.ts) after which a page ends early, resumable. */
  budget?: number;
}

/**
 * The order key of a frontier position: above every real one, so that a page ended by the budget
 * at distance d resumes with every task at d or farther.
 */
export const FRONTIER_KEY = "ZZZZZZZZZZZZZZZZZZZZZZZZZZ";

export function unitsOf(work: NearestWork): number {
  return work.lists * LIST_COST + work.entries * ENTRY_COST + work.docs * DOC_COST;
}

export interface NearestPage {
  items: ExploreItem[];
  next: NearestPosition | null;
  work: NearestWork;
}

/**
 * A cell holding more tasks than this is split into its 32 finer cells (down to the point
 * entries' precision): a cell is read with this limit plus one, and split when it overflows.
 */
export const SPLIT_ABOVE = 32;
/**
 * Where a page is expected to reach far (its first batch's reach at the density around the point
 * beyond `SPARSE_REACH_KM`), the first batch also reads whole, however far, the counter cells of
 * at most this many times `SPLIT_ABOVE` tasks, nearest first, up to `WHOLE_CELLS_ENTRIES` in all:
 * in a sparse area a radius layer's matches lie hundreds of km out, and a walk reaching out ring
 * after ring, each twice as far, waited for a batch a ring.
 */
export const WHOLE_CELL_FACTOR = 4;
export const WHOLE_CELLS_ENTRIES = 256;
/**
 * A cell expected to hold up to this many times `SPLIT_ABOVE` tasks is read whole rather than
 * split when that costs less, a list counted as `LIST_ENTRIES` entries: the server's CPU for one
 * list call is measured in entries read (bench/results/explore_reads.md and explore_cpu.md),
 * and the finer cells of a city hold a few tasks each.
 */
export const COARSE_FACTOR = 8;
export const LIST_ENTRIES = 10;
/** Most entries of one list (a cell at the point entries' precision is read whole). */
export const MAX_LIST = 500;
/** Most lists of one batch. */
export const MAX_BATCH_LISTS = 64;
/** Margin on the far bound of a cell (km), against rounding in the near bound. */
const FAR_SLACK_KM = 0.01;
const RAD = Math.PI / 180;

/**
 * An upper bound of the distance from the point to any point of a box, from its lower bound:
 * any two points of the box are at most its width along its widest parallel plus its height
 * apart (triangle inequality through a corner of the two).
 */
export function farBoundKm(near: number, box: GeoBox): number {
  const widest = box.minLat <= 0 && box.maxLat >= 0
    ? 0
    : Math.min(Math.abs(box.minLat), Math.abs(box.maxLat));
  const across = (box.maxLon - box.minLon) * RAD * Math.cos(widest * RAD);
  const up = (box.maxLat - box.minLat) * RAD;
  return near + (across + up) * EARTH_RADIUS_KM + FAR_SLACK_KM;
}

/** True when the task at (d, key) comes after the position in page order. */
export function isAfter(d: number, key: string, after: NearestPosition | null): boolean {
  return !after || d > after.d || (d === after.d && key < after.key);
}
