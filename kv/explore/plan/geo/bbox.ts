/**
 * The bounding-box driver of explore: the geo cells of each layer that meet the box (both sides
 * of the antimeridian), read newest first; every candidate is then checked on its facet, so the
 * cells only have to hold every task in the box, never only those.
 */
import { bboxParts, type BoundingBox } from "../../../../domain/geo/bbox.ts";
import { cellAreaKm2, geohashBounds, geohashEncode } from "../../../../domain/geo/geohash.ts";
import { EARTH_RADIUS_KM, type GeoBox } from "../../../../domain/geo/geo.ts";
import {
  CELL_LAYERS,
  type CellLayer,
  COUNT_PRECISION,
  FALLBACK_PRECISION,
  GEO_LAYERS,
} from "../../index/entries.ts";
import type { CounterReader, Driver, PlanQuery } from "../driver.ts";
import { countId, Density } from "../../shared/density.ts";
import { probeCounts } from "../../shared/probes.ts";
import { type PlanMemory, planMemory } from "../../shared/plan_memory.ts";
import { keyId } from "../../../key_id.ts";
import { GETMANY_MAX } from "../../../store/limits.ts";
import {
  AREA_PROBE_LIMIT,
  AREA_PROBE_PRECISIONS,
  DENSITY_SAFETY,
  MAX_FINE_CELLS,
  SHARE_SAFETY,
} from "../../shared/geo_constants.ts";
import { FIRST_BATCH, MAX_FIRST_BATCH, PrefixStream } from "../../scan/stream.ts";
import { ENTRY_COST, LIST_COST } from "../../scan/work.ts";
import { explore } from "../../../keyspace.ts";

/** Past this many counter cells per layer the box is no narrower than a whole scan: no driver. */
export const MAX_BOX_CELLS = 64;
/** A counter cell holding more tasks than this is read through finer cells where it can be. */
const SPLIT_ABOVE = 64;
/**
 * A box up to this area (km², a city viewport) also reads the city cells around its centre with
 * its counters: their density sizes the first lists, which an even spread over precision-2 cells
 * turns into whole-stream reads in a city.
 */
const PROBED_AREA_KM2 = 5000;
const RAD = Math.PI / 180;

function areaKm2(box: GeoBox): number {
  return EARTH_RADIUS_KM ** 2 * (box.maxLon - box.minLon) * RAD *
    Math.abs(Math.sin(box.maxLat * RAD) - Math.sin(box.minLat * RAD));
}

/** The overlap of two rectangles that do not wrap, or null. */
function intersect(a: GeoBox, b: GeoBox): GeoBox | null {
  const box = {
    minLon: Math.max(a.minLon, b.minLon),
    maxLon: Math.min(a.maxLon, b.maxLon),
    minLat: Math.max(a.minLat, b.minLat),
    maxLat: Math.min(a.maxLat, b.maxLat),
  };
  return box.minLon <= box.maxLon && box.minLat <= box.maxLat ? box : null;
}

/** The cells of one precision that meet a rectangle, or null past `max` of them. */
export function cellsInBox(box: GeoBox, precision: number, max: number): string[] | null {
  const lonBits = Math.ceil((5 * precision) / 2);
  const latBits = Math.floor((5 * precision) / 2);
  const width = 360 / 2 ** lonBits;
  const height = 180 / 2 ** latBits;
  const col = (lon: number) => Math.min(2 ** lonBits - 1, Math.floor((lon + 180) / width));
  const row = (lat: number) => Math.min(2 ** latBits - 1, Math.floor((lat + 90) / height));
  const [c0, c1, r0, r1] = [col(box.minLon), col(box.maxLon), row(box.minLat), row(box.maxLat)];
  if ((c1 - c0 + 1) * (r1 - r0 + 1) > max) return null;
  const cells: string[] = [];
  for (let c = c0; c <= c1; c++) {
    for (let r = r0; r <= r1; r++) {
      cells.push(geohashEncode(-180 + (c + 0.5) * width, -90 + (r + 0.5) * height, precision));
    }
  }
  return cells;
}

/**
 * Storage work to read a stream of `size` entries down to the page's frontier (the fraction
 * `share` of it, at least a first batch, at most all), its list included.
 */
function streamCost(size: number, share: number): number {
  return LIST_COST + Math.min(size, Math.max(FIRST_BATCH, share * size)) * ENTRY_COST;
}

/**
 * The counter cell itself or one of its finer covers inside the box, whichever costs least to
 * read down to the page's frontier (sizes by even spread over the covers' cells).
 */
function cheapestCover(
  { parent, count, covers, share }: {
    parent: string;
    count: number;
    covers: string[][];
    share: number;
  },
): string[] {
  let best = [parent];
  let bestCost = streamCost(count, share);
  for (const cells of covers) {
    const size = count / 32 ** (cells[0].length - parent.length);
    const cost = cells.length * streamCost(size, share);
    if (cost < bestCost) {
      best = cells;
      bestCost = cost;
    }
  }
  return best;
}

function area(box: GeoBox): number {
  return (box.maxLon - box.minLon) * (box.maxLat - box.minLat);
}

/**
 * Every layer's counters of the box's cells, in order. Where they take more than one getMany and
 * the instance remembers none of the box's cells holding tasks (a box it has not read, or one it
 * found empty), the cells' `layersCount`s are read first: a task in the box has its centre in one
 * of them and is in that cell's entries in every layer (a disc's cells hold its centre's), so a
 * cell without a centre is read in no layer, nor a precision-1 cell without one, and an empty box
 * (an ocean's) is proved so by one getMany. A box with tasks reads its counters at once, as
 * before: the centre counts first cost some region viewports a round trip. Memory only picks the
 * order; every count used is read.
 */
async function layerCounts(
  counts: CounterReader,
  memory: PlanMemory,
  { cells, centres }: { cells: { cell: string; key: Deno.KvKey }[]; centres: string[] },
): Promise<number[]> {
  const centreKeys = centres.map((cell) => explore.layersCount(cell));
  const heldBefore = centreKeys.some((key) => (memory.counters.get(keyId(key)) ?? 0) > 0);
  if (cells.length <= GETMANY_MAX || heldBefore) return counts(cells.map((c) => c.key));
  const held = (await counts(centreKeys)).flatMap((n, i) => n > 0 ? [centres[i]] : []);
  const read = cells.flatMap((c, i) => held.some((h) => h.startsWith(c.cell)) ? [i] : []);
  const values = await counts(read.map((i) => cells[i].key));
  const n = cells.map(() => 0);
  read.forEach((at, j) => n[at] = values[j]);
  return n;
}

/**
 * The box's driver: per layer, the counter cells that meet it (empty ones skipped), each read
 * whole when sparse, else through its finest cells inside the box if they are few. The estimate
 * assumes tasks spread evenly within each counter cell. Null when the box spans too many cells.
 */
export async function bboxDriver(
  kv: Deno.Kv,
  counts: CounterReader,
  query: PlanQuery & { bbox: BoundingBox },
): Promise<Driver | null> {
  const { bbox, after, limit, work } = query;
  const parts = bboxParts(bbox);
  const coarse = new Set<string>();
  for (const part of parts) {
    const cells = cellsInBox(part, COUNT_PRECISION, MAX_BOX_CELLS);
    if (!cells) return null;
    for (const cell of cells) coarse.add(cell);
  }
  if (coarse.size > MAX_BOX_CELLS) return null;
  const parents = [...coarse];
  // The layers past the disc cap count at a coarser precision.
  const coarsest = new Set<string>();
  for (const part of parts) {
    for (const cell of cellsInBox(part, FALLBACK_PRECISION, MAX_BOX_CELLS) ?? []) {
      coarsest.add(cell);
    }
  }
  const parentsOf = (layer: CellLayer) =>
    layer.countPrecision === COUNT_PRECISION ? parents : [...coarsest];
  const boxKm2 = parts.reduce((sum, p) => sum + areaKm2(p), 0);
  const probed = parts.length === 1 && after === null && boxKm2 <= PROBED_AREA_KM2;
  const centre = probed && !query.dry
    ? { lon: (bbox.minLon + bbox.maxLon) / 2, lat: (bbox.minLat + bbox.maxLat) / 2, radiusKm: 0 }
    : null;
  const probing = centre
    ? probeCounts(kv, planMemory(kv), centre, {
      limit: AREA_PROBE_LIMIT,
      precisions: AREA_PROBE_PRECISIONS,
    })
    : null;
  const [n, probes] = await Promise.all([
    layerCounts(counts, planMemory(kv), {
      cells: CELL_LAYERS.flatMap((layer) =>
        parentsOf(layer).map((cell) => ({ cell, key: explore.count("cell", layer.name, cell) }))
      ),
      centres: parents,
    }),
    probing,
  ]);
  let density: Density | null = null;
  if (centre && probes) {
    for (const p of probes.read) {
      work.lists++;
      work.entries += p.entries.length;
      work.units += LIST_COST + p.entries.length * ENTRY_COST;
    }
    // Density counts a class by its centre; a disc layer's counts stand for it, a little high.
    const byCell = new Map<string, number>();
    let i = 0;
    for (const layer of CELL_LAYERS) {
      for (const cell of parentsOf(layer)) {
        const id = countId(layer.of, cell);
        byCell.set(id, (byCell.get(id) ?? 0) + n[i++]);
      }
    }
    density = new Density(centre, probes.counts, byCell);
  }
  const plans: { layer: string; cell: string; size: number; local: number }[] = [];
  let estimate = 0;
  let upper = 0;
  let at = 0;
  const cells: { layer: CellLayer; parent: string; count: number; covers: string[][] }[] = [];
  // A disc layer's cells hold every task whose disc reaches them, so those whose centre is in
  // the box too: the facet check keeps those.
  for (const layer of CELL_LAYERS) {
    for (const parent of parentsOf(layer)) {
      const count = n[at++];
      if (count === 0) continue;
      upper += count;
      const bounds = geohashBounds(parent);
      const inside = parts.map((p) => intersect(p, bounds)).filter((b): b is GeoBox => !!b);
      const share = Math.min(1, inside.reduce((s, b) => s + area(b), 0) / area(bounds));
      estimate += count * share;
      const covers: string[][] = [];
      if (count > SPLIT_ABOVE) {
        for (const precision of layer.precisions.filter((p) => p > layer.countPrecision)) {
          const finer = inside.flatMap((b) => cellsInBox(b, precision, MAX_FINE_CELLS) ?? [""]);
          if (finer.includes("") || finer.length > MAX_FINE_CELLS) break;
          // A part's edge on the counter cell's own edge meets the next cell's finer cells too:
          // those are that cell's to read (each was listed twice, once for each counter cell).
          const own = finer.filter((c) => c.startsWith(parent));
          if (own.length > 0) covers.push([...new Set(own)]);
        }
      }
      cells.push({ layer, parent, count, covers });
    }
  }
  const pageShare = Math.min(1, (limit + 1) / Math.max(estimate, 1));
  for (const { layer, parent, count, covers } of cells) {
    // Without the centre's density, a cell the page takes a few entries of is read whole in one
    // list rather than through its finer cells, each a list of at least a first batch: a
    // region's viewport listed some forty cells a page that way, most of them for nothing.
    const chosen = density
      ? covers.at(-1) ?? [parent]
      : cheapestCover({ parent, count, covers, share: Math.min(1, SHARE_SAFETY * pageShare) });
    const size = count / chosen.length;
    for (const cell of chosen) {
      // Tasks the cell holds at the centre's density, at most its counter cell's.
      const local = density ? Math.min(count, density.perKm2(layer.of) * cellAreaKm2(cell)) : -1;
      plans.push({ layer: layer.name, cell, size, local });
    }
  }
  // With the centre's density: the page reads the same newest share of every stream, (limit + 1)
  // over the matches the box holds at that density.
  const matches = density
    ? GEO_LAYERS.reduce((sum, layer) => sum + density.perKm2(layer) * boxKm2, 0)
    : 0;
  const localShare = Math.min(1, (limit + 1) / Math.max(1, matches));
  return {
    name: "bbox",
    probed,
    estimate,
    upper,
    wordsFromDocs: true,
    streams: (_depth, widen = 1) =>
      plans.map((p) => {
        const wanted = widen *
          (p.local >= 0 ? DENSITY_SAFETY * localShare * p.local : pageShare * p.size);
        const batch = Math.min(MAX_FIRST_BATCH, Math.max(FIRST_BATCH, Math.ceil(wanted) + 1));
        const prefix = explore.byCellPrefix(p.layer, p.cell);
        return new PrefixStream(kv, { prefix, before: after, work, batch });
      }),
  };
}
