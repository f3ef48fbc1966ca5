/**
 * How dense the tasks are around a point, from the point cells probed there and the counters:
 * the nearest walk (`nearest/nearest_page.ts`) reads the cells that hold a page in one batch of
 * parallel lists at the precision that fits them, and a small circle or box (`plan/geo/`) sizes
 * its first lists by it.
 */
import { cellAreaKm2, geohashEncode } from "../../../domain/geo/geohash.ts";
import type { GeoFilter } from "../../../domain/explore.ts";
import { COUNT_PRECISION, GEO_LAYERS, type GeoLayer } from "../index/entries.ts";
import { type PackedCard } from "../index/card.ts";
import { explore } from "../../keyspace.ts";
import { PROBE_PRECISIONS, SPARSE_REACH_KM } from "./geo_constants.ts";

/**
 * A batch reads the cells expected to hold this many times the matches the page still needs, so
 * that a density a little off still finds the page in one batch.
 */
const SAFETY = 2;
/**
 * Where the reach goes past `SPARSE_REACH_KM` (a sparse area), the density comes from the handful
 * of tasks a probe cell holds, a few times off either way: the batch reads to twice that margin,
 * as the ring a page then still lacks costs a round trip of its own.
 */
const FAR_SAFETY = 4;

/**
 * One probe: a cell around the point, the entries read (at most `limit`, cards left packed: most
 * probes only count them), and whether that is all.
 */
export interface Probe {
  hash: string;
  entries: { key: string; packed: PackedCard }[];
  whole: boolean;
  /** The key of its last entry kept, where it is not whole: the cell is read up to there. */
  lastKey?: Deno.KvKey;
}

/**
 * What `Density` needs of a probe: its cell, the entries found there (at most the probe's limit)
 * and whether that is all of them.
 */
export interface ProbeCount {
  hash: string;
  found: number;
  whole: boolean;
}

/** A probe read, as `Density` counts it. */
export function probeCount(probe: Probe): ProbeCount {
  return { hash: probe.hash, found: probe.entries.length, whole: probe.whole };
}

/**
 * Reads the point cells around the point (tasks of every class), each up to `limit` entries, in
 * parallel.
 */
export function probeAround(
  kv: Deno.Kv,
  geo: GeoFilter,
  { limit, precisions = PROBE_PRECISIONS }: { limit: number; precisions?: number[] },
): Promise<Probe>[] {
  return precisions.map(async (p) => {
    const hash = geohashEncode(geo.lon, geo.lat, p);
    const entries: Probe["entries"] = [];
    const keys: Deno.KvKey[] = [];
    const iter = kv.list<PackedCard>(explore.byPointRange(hash), {
      limit: limit + 1,
      batchSize: limit + 1,
    });
    for await (const entry of iter) {
      entries.push({ key: entry.key.at(-1) as string, packed: entry.value });
      keys.push(entry.key);
    }
    const whole = entries.length <= limit;
    if (whole) return { hash, entries, whole };
    return { hash, entries: entries.slice(0, limit), whole, lastKey: keys[limit - 1] };
  });
}

/** Tasks per km² around the point, per layer, and the radius a batch reads to. */
export class Density {
  readonly #perLayer = new Map<string, number>();
  readonly #total: number;

  /**
   * From the probes (point cells around the point, every class) and the counters of the
   * precision-2 cell holding the point (every layer): the classes are taken to share the
   * probes' density in their counters' proportion.
   */
  constructor(geo: GeoFilter, probes: ProbeCount[], counts: Map<string, number>) {
    const home = geohashEncode(geo.lon, geo.lat, COUNT_PRECISION);
    const homeArea = cellAreaKm2(home);
    const homeCount = (layer: GeoLayer) => counts.get(countId(layer, home)) ?? 0;
    const everyClass = GEO_LAYERS.reduce((sum, layer) => sum + homeCount(layer), 0);
    // An overflowing probe bounds the density from below, a whole one measures it; the coarsest
    // whole one has the largest sample.
    let all = everyClass / homeArea;
    for (const probe of probes) {
      const area = cellAreaKm2(probe.hash);
      all = Math.max(all, probe.found / area);
      if (probe.whole) break;
    }
    let total = 0;
    for (const layer of GEO_LAYERS) {
      const rho = everyClass > 0 ? all * homeCount(layer) / everyClass : 0;
      this.#perLayer.set(layer.name, rho);
      total += rho;
    }
    this.#total = total;
  }

  /**
   * Tasks a point cell (every class) is expected to hold, at most `size` (its precision-2 cell's
   * count): at the local density up to `local` km from the point, farther at its counter's even
   * spread, since a city's density would split a whole country's cells into thousands.
   */
  expected(cell: { hash: string; size: number; at: number }, local: number) {
    const { hash, size } = cell;
    if (cell.at > local) return size / 32 ** (hash.length - COUNT_PRECISION);
    return Math.min(size, this.#total * cellAreaKm2(hash));
  }

  /** Tasks per km² of the layer around the point. */
  perKm2(layer: GeoLayer): number {
    return this.#perLayer.get(layer.name) ?? 0;
  }

  /**
   * The distance within which `wanted` more matches are expected beyond `from` km (with the
   * safety margin): a batch reads every cell nearer than that.
   */
  reach(from: number, wanted: number): number {
    if (this.#total <= 0) return Infinity;
    const disc = wanted / (Math.PI * this.#total);
    const near = Math.sqrt(from * from + SAFETY * disc);
    return near > SPARSE_REACH_KM ? Math.sqrt(from * from + FAR_SAFETY * disc) : near;
  }
}

/** The counters' key of a layer's cell, as `Density` looks them up. */
export function countId(layer: GeoLayer, hash: string): string {
  return `${layer.name}/${hash}`;
}
