/**
 * The planner's geographic part: the cells of each geo layer that a search circle reaches, read at
 * the precision that costs least.
 */
import { cellAreaKm2 } from "../../../../domain/geo/geohash.ts";
import { coverCircle } from "../../../../domain/geo/geohash_cover.ts";
import { capAreaKm2 } from "../../../../domain/geo/geo.ts";
import type { GeoFilter } from "../../../../domain/explore.ts";
import { CELL_LAYERS, type CellLayer } from "../../index/entries.ts";
import type { CounterReader, Driver, PlanQuery } from "../driver.ts";
import { FIRST_BATCH, MAX_FIRST_BATCH, PrefixStream } from "../../scan/stream.ts";
import { ENTRY_COST, LIST_COST } from "../../scan/work.ts";
import { explore } from "../../../keyspace.ts";
import { countId, Density, type ProbeCount } from "../../shared/density.ts";
import { probeCounts } from "../../shared/probes.ts";
import { geoDepthKey, learnDepth, learnedBatch } from "./depth.ts";
import { planMemory } from "../../shared/plan_memory.ts";
import { finerCount, spill } from "../../shared/finer_cells.ts";
import {
  AREA_PROBE_LIMIT,
  AREA_PROBE_PRECISIONS,
  DENSITY_SAFETY,
  MAX_FINE_CELLS,
  SHARE_SAFETY,
} from "../../shared/geo_constants.ts";

/**
 * A circle up to this radius (km) also reads the city cells around its centre (probes of about
 * 4.9 and 1.2 km) alongside its counters: the local density sizes its first lists, which an
 * even spread over precision-2 cells sets far too shallow in a city (a page then waited for two
 * refills, one after another).
 */
const PROBED_RADIUS_KM = 30;

/**
 * The least first batch of a stream expected to give `expected` entries to the page: its
 * expectation plus three standard deviations and 2, at most `FIRST_BATCH`.
 */
function smallBatch(expected: number): number {
  return Math.min(FIRST_BATCH, Math.ceil(expected + 3 * Math.sqrt(expected)) + 2);
}

/**
 * A stream's first batch: its even-spread share of the page (at the learned depth, if any), one
 * more so that a stream read whole knows it is done; with `near`, what the density around a
 * probed circle's centre says the page takes of it, read twice over. A radius class's stream is
 * sized by `near` alone where there is one: the even spread counts its tasks as reaching the
 * class's largest radius, so a small circle in a city read many times what it took of the
 * 100 and 500 km classes' cells. Not a full first batch for such a stream either, but its
 * expectation plus three standard deviations and 2.
 */
function firstBatch(
  { of: layer }: CellLayer,
  { size, share, depth, near }: { size: number; share: number; depth?: number; near?: number },
): number {
  const local = near === undefined ? 0 : Math.ceil(DENSITY_SAFETY * near) + 1;
  if (layer.maxRadiusKm === 0) {
    const even = learnedBatch(depth, share * size) ?? Math.ceil(share * size) + 1;
    return Math.max(FIRST_BATCH, even, local);
  }
  if (near !== undefined) return Math.max(smallBatch(near), local);
  const even = learnedBatch(depth, share * size) ?? Math.ceil(share * size) + 1;
  return Math.max(smallBatch(share * size), even);
}

interface CellPlan {
  cell: string;
  /** Tasks the cell holds: exact at the counters' precision, else an even-spread estimate. */
  size: number;
}

/**
 * Storage work to read a cell's stream down to the page's frontier: a list, then the fraction
 * `share` of its entries that is newer than the frontier (at least a first batch, at most all).
 */
function streamCost(size: number, share: number): number {
  return LIST_COST + Math.min(size, Math.max(FIRST_BATCH, share * size)) * ENTRY_COST;
}

/**
 * The cells that cover one counter cell's part of the search circle, at whichever precision
 * costs least: the counter cell itself (one list, its exact count known) where it is sparse,
 * or its finer cells inside the circle where fewer entries outweigh more list calls.
 */
function cheapestCells(
  { cell: parent, count }: { cell: string; count: number },
  { layer, finer, share }: { layer: CellLayer; finer: string[][]; share: number },
): CellPlan[] {
  let best: CellPlan[] = [{ cell: parent, size: count }];
  let bestCost = streamCost(count, share);
  for (const cells of finer) {
    const inside = cells.filter((c) => c.startsWith(parent));
    if (inside.length === 0) continue;
    const size = finerCount(layer, { parent, count, cell: inside[0] });
    const cost = inside.length * streamCost(size, share);
    if (cost < bestCost) {
      best = inside.map((cell) => ({ cell, size }));
      bestCost = cost;
    }
  }
  return best;
}

/**
 * The geo driver: per layer, the search circle widened by the layer's largest task radius,
 * covered cell by counter cell at the cheapest precision (see `cheapestCells`). Counters of the
 * coarse cells estimate the count (assuming an even spread inside each cell), skip cells known
 * to be empty, and size each stream's first batch to what the page is expected to need from it,
 * so that a sparse cell is read whole in one list.
 */
export async function geoDriver(
  kv: Deno.Kv,
  counts: CounterReader,
  query: PlanQuery & { geo: GeoFilter },
): Promise<Driver> {
  const { geo, after, limit, work } = query;
  const layers = CELL_LAYERS.map((layer) => {
    const { extraKm, countPrecision: counted } = layer;
    const coarse = coverCircle(geo, { maxCells: 1024, precisions: [counted], extraKm }).cells;
    // Finer covers within MAX_FINE_CELLS; coverCircle falls back to the counters' precision
    // (without enumerating the finer grid) when one would take more.
    const finer = layer.precisions.filter((p) => p > counted).map((p) =>
      coverCircle(geo, { maxCells: MAX_FINE_CELLS, precisions: [p, counted], extraKm })
    ).filter((c) => c.precision > counted).map((c) => c.cells);
    return { layer, coarse, finer };
  });
  const counterKeys: Deno.KvKey[] = [];
  for (const { layer, coarse } of layers) {
    for (const cell of coarse) counterKeys.push(explore.count("cell", layer.name, cell));
  }
  const memory = planMemory(kv);
  const probed = geo.radiusKm <= PROBED_RADIUS_KM && after === null;
  const probing = probed && !query.dry
    ? probeCounts(kv, memory, geo, { limit: AREA_PROBE_LIMIT, precisions: AREA_PROBE_PRECISIONS })
    : null;
  const [n, probeRead] = await Promise.all([counts(counterKeys), probing]);
  const probes = probeRead?.counts ?? null;
  for (const p of probeRead?.read ?? []) {
    work.lists++;
    work.entries += p.entries.length;
    work.units += LIST_COST + p.entries.length * ENTRY_COST;
  }
  let estimate = 0;
  let upper = 0;
  let at = 0;
  const sized = layers.map(({ layer, coarse, finer }) => {
    const parents = coarse.map((cell) => ({ cell, count: n[at++] })).filter((p) => p.count > 0);
    let inCells = 0;
    let area = 0;
    for (const p of parents) {
      inCells += p.count;
      area += cellAreaKm2(p.cell) * spill(layer, p.cell);
    }
    upper += inCells;
    if (inCells > 0) estimate += inCells * Math.min(1, reachAreaKm2(geo, layer) / area);
    return { layer, parents, finer };
  });
  // The page ends at the frontier where limit + 1 matches are found; with matches spread evenly
  // in time, every stream is read down to the same share of its entries.
  const share = Math.min(1, (limit + 1) / Math.max(estimate, 1));
  // Covers are chosen as if the page read deeper than that: the estimate counts a radius class
  // up to its largest radius and assumes an even spread, so it runs high outside cities, and a
  // coarse cell read deeper than planned costs in proportion to its whole size.
  const planShare = Math.min(1, SHARE_SAFETY * share);
  const deep = probes ? localDepth(geo, { layers, counts: n, probes, limit }) : null;
  // An unprobed circle alone sizes its first lists by how deep the instance's last such pages
  // read against the even spread: far deeper outside cities, where a page refilled its streams
  // one round trip after another.
  const depthKey = after === null ? geoDepthKey(query.filters, probed) : null;
  const depth = depthKey === null ? undefined : memory.depths.get(depthKey);
  const plans: { prefix: Deno.KvKey; batch: number; expected: number }[] = [];
  for (const { layer, parents, finer } of sized) {
    for (const parent of parents) {
      for (const { cell, size } of cheapestCells(parent, { layer, finer, share: planShare })) {
        const near = deep ? deep(layer, cell, parent.count) : undefined;
        const batch = Math.min(MAX_FIRST_BATCH, firstBatch(layer, { size, share, depth, near }));
        const prefix = explore.byCellPrefix(layer.name, cell);
        plans.push({ prefix, batch, expected: share * size });
      }
    }
  }
  return {
    name: "geo",
    probed,
    estimate,
    upper,
    wordsFromDocs: true,
    learnDepth: depthKey === null
      ? undefined
      : (streams) =>
        learnDepth(memory, depthKey, { streams, expected: plans.map((p) => p.expected) }),
    streams: (_depth, widen = 1) =>
      plans.map((p) =>
        new PrefixStream(kv, {
          prefix: p.prefix,
          before: after,
          work,
          batch: Math.min(MAX_FIRST_BATCH, Math.ceil(p.batch * widen)),
        })
      ),
  };
}

/**
 * What a page takes of each stream, from the density around a small circle's centre: with matches
 * spread evenly in time, the page reads the same newest share of every stream, (limit + 1) / the
 * matches the circle holds, of a cell holding at most its counter cell's tasks.
 */
function localDepth(
  geo: GeoFilter,
  { layers, counts, probes, limit }: {
    layers: { layer: CellLayer; coarse: string[] }[];
    counts: number[];
    probes: ProbeCount[];
    limit: number;
  },
): (layer: CellLayer, cell: string, parentCount: number) => number {
  // Density counts a class by its centre; a disc layer's counts stand for it, a little high.
  const byCell = new Map<string, number>();
  let at = 0;
  for (const { layer, coarse } of layers) {
    for (const cell of coarse) {
      const id = countId(layer.of, cell);
      byCell.set(id, (byCell.get(id) ?? 0) + counts[at++]);
    }
  }
  const density = new Density(geo, probes, byCell);
  // A radius-type task matches from as far as the circle plus its own radius (taken at half its
  // class's largest), but no layer holds more than its counter cells' tasks.
  const matches = layers.reduce((sum, { layer, coarse }, l) => {
    const reach = capAreaKm2(geo.radiusKm + layer.of.maxRadiusKm / 2);
    const before = layers.slice(0, l).reduce((n, x) => n + x.coarse.length, 0);
    const inCells = counts.slice(before, before + coarse.length).reduce((a, b) => a + b, 0);
    return sum + Math.min(inCells, density.perKm2(layer.of) * reach);
  }, 0);
  const share = Math.min(1, (limit + 1) / Math.max(1, matches));
  return (layer, cell, parentCount) => {
    const area = cellAreaKm2(cell) * spill(layer, cell);
    return share * Math.min(parentCount, density.perKm2(layer.of) * area);
  };
}

/**
 * The area whose tasks a layer's cells give the circle: the circle widened by the layer's
 * `extraKm` for a centre layer, by half the class's largest radius for a disc layer (whose
 * cells' area is widened alike, `spill`).
 */
function reachAreaKm2(geo: GeoFilter, layer: CellLayer): number {
  return capAreaKm2(geo.radiusKm + (layer.disc ? layer.of.maxRadiusKm / 2 : layer.extraKm));
}
