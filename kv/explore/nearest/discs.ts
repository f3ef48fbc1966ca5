/**
 * A nearest-first page's other way to a disc class's tasks (`nearest_page.ts`): the class's
 * disc layer over the circle's own cover, and its fallback layer, read whole in the first batch
 * instead of the class's point cells walked out to where the page ends.
 */
import type { GeoFilter } from "../../../domain/explore.ts";
import { BASE32, cellAreaKm2, geohashEncode } from "../../../domain/geo/geohash.ts";
import { coverCircle } from "../../../domain/geo/geohash_cover.ts";
import {
  CELL_LAYERS,
  type CellLayer,
  COUNT_PRECISION,
  GEO_LAYERS,
  type GeoLayer,
} from "../index/entries.ts";
import { explore } from "../../keyspace.ts";
import { PROBE_PRECISIONS, SPARSE_REACH_KM } from "../shared/geo_constants.ts";
import type { PlanMemory } from "../shared/plan_memory.ts";
import { LIST_ENTRIES } from "./page_bounds.ts";

/** Most cells of a class's own cover of the circle: past it the class is walked by its points. */
const MAX_DISC_COVER = 4;

/**
 * One disc class's cells for a circle: its disc layer's cover of the circle (at the class's
 * finest precision within `MAX_DISC_COVER` cells) with their counter cells, and its fallback
 * layer's cells of the circle widened by the class's largest radius (tasks keyed by centre).
 */
export interface DiscCover {
  of: GeoLayer;
  disc: { layer: CellLayer; cells: string[]; parents: string[] };
  fallback: { name: string; cells: string[] };
}

/** The disc classes' covers of a circle, and the counters that size them (read in one go). */
export function discCovers(geo: GeoFilter): { covers: DiscCover[]; keys: Deno.KvKey[] } {
  const covers: DiscCover[] = [];
  for (const of of GEO_LAYERS) {
    if (!of.disc) continue;
    const disc = CELL_LAYERS.find((c) => c.of === of && c.disc)!;
    const fallback = CELL_LAYERS.find((c) => c.of === of && !c.disc)!;
    const cover = coverCircle(geo, { maxCells: MAX_DISC_COVER, precisions: disc.precisions });
    if (cover.cells.length > MAX_DISC_COVER) continue;
    covers.push({
      of,
      disc: {
        layer: disc,
        cells: cover.cells,
        parents: [...new Set(cover.cells.map((c) => c.slice(0, COUNT_PRECISION)))],
      },
      fallback: {
        name: fallback.name,
        cells: coverCircle(geo, {
          maxCells: 1024,
          precisions: fallback.precisions,
          extraKm: fallback.extraKm,
        }).cells,
      },
    });
  }
  const keys = covers.flatMap(({ disc, fallback }) => [
    ...disc.parents.map((p) => explore.count("cell", disc.layer.name, p)),
    ...fallback.cells.map((c) => explore.count("cell", fallback.name, c)),
  ]);
  return { covers, keys };
}

/**
 * False where the page cannot reach far (`SPARSE_REACH_KM`), by the probes the instance last read
 * around its point: its density is at least theirs, so the disc cells' counters would be read for
 * nothing. A probe remembered by a town since emptied only leaves the page to its point cells.
 */
export function mayReachFar(
  memory: PlanMemory,
  geo: GeoFilter,
  { from, limit }: { from: number; limit: number },
): boolean {
  let density = 0;
  for (const precision of PROBE_PRECISIONS) {
    const hash = geohashEncode(geo.lon, geo.lat, precision);
    const seen = memory.probes.peek(hash);
    if (seen) density = Math.max(density, seen.found / cellAreaKm2(hash));
  }
  // As `Density.reach`, with its margin of 2 (the smaller), over the probed tasks alone.
  return density <= 0 || from * from + 2 * (limit + 1) / (Math.PI * density) > SPARSE_REACH_KM ** 2;
}

/** A cell of a cell layer to list whole: every task of the class that can match is in one. */
export interface DiscRead {
  layer: GeoLayer;
  cellLayer: string;
  hash: string;
  /** The last cell of a run of the layer's finest cells listed as one range from `hash`. */
  through?: string;
  size: number;
}

/**
 * The disc classes' reads for a page that reaches far. A class matches a circle up to its largest
 * radius past it, so walked by its points it would stretch the walk out to that reach, and there
 * a point cell's list holds every class's tasks, not the class's few: a page that cannot fill
 * reads every class out to 150 or 550 km. Its disc cells over the circle hold every task whose
 * disc meets the circle (all its matches) in a few lists, so they are read instead wherever the
 * circle's cover has room (`MAX_DISC_COVER`); the answers are the same either way.
 */
export function chooseDiscs(
  covers: DiscCover[],
  counts: number[],
): { classes: GeoLayer[]; reads: DiscRead[] } {
  const reads: DiscRead[] = [];
  let at = 0;
  for (const { of, disc, fallback } of covers) {
    const parentCount = new Map(disc.parents.map((p, i) => [p, counts[at + i]]));
    at += disc.parents.length;
    const fallbackCounts = counts.slice(at, at + fallback.cells.length);
    at += fallback.cells.length;
    const cells = disc.cells.filter((hash) => (parentCount.get(parent(hash)) ?? 0) > 0);
    for (const run of discRuns(cells, disc.layer, parentCount)) {
      const size = parentCount.get(parent(run[0]))!;
      const through = run.length > 1 ? run[run.length - 1] : undefined;
      reads.push({ layer: of, cellLayer: disc.layer.name, hash: run[0], through, size });
    }
    fallback.cells.forEach((hash, i) => {
      if (fallbackCounts[i] === 0) return;
      reads.push({ layer: of, cellLayer: fallback.name, hash, size: fallbackCounts[i] });
    });
  }
  return { classes: covers.map((c) => c.of), reads };
}

const parent = (hash: string) => hash.slice(0, COUNT_PRECISION);

/**
 * A disc layer's cells of the circle in runs of one key range each: cells of its finest precision
 * in one counter cell, in key order, where the cells between one and the next hold fewer tasks
 * than a list costs (`LIST_ENTRIES`) even if each held every task its counter cell counts (a disc
 * is in many of its counter cell's cells). Each is read whole, so a run reads the same tasks and
 * those between, in one list instead of several.
 */
export function discRuns(
  cells: string[],
  layer: CellLayer,
  counts: Map<string, number>,
): string[][] {
  const finest = Math.max(...layer.precisions);
  const runs: string[][] = [];
  let last: string | null = null;
  for (const hash of [...cells].sort()) {
    const joins = last !== null && hash.length === finest && last.length === finest &&
      parent(last) === parent(hash) &&
      cellsBetween(last, hash) * (counts.get(parent(hash)) ?? 0) < LIST_ENTRIES;
    if (joins) runs[runs.length - 1].push(hash);
    else runs.push([hash]);
    last = hash;
  }
  return runs;
}

/** Cells of one length strictly between a and b (b after a) that differ in their last digit only. */
function cellsBetween(a: string, b: string): number {
  if (a.slice(0, -1) !== b.slice(0, -1)) return Infinity;
  return BASE32.indexOf(b.at(-1)!) - BASE32.indexOf(a.at(-1)!) - 1;
}
