/**
 * How dense the tasks are around a point, from the city cells probed there and the counters:
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

/** Reads the city layer's cells around the point, each up to `limit` entries, in parallel. */
export function probeAround(
  kv: Deno.Kv,
  geo: GeoFilter,
  { limit, precisions = PROBE_PRECISIONS }: { limit: number; precisions?: number[] },
): Promise<Probe>[] {
  const layer = GEO_LAYERS[0];
  return precisions.map(async (p) => {
    const hash = geohashEncode(geo.lon, geo.lat, p);
    const entries: Probe["entries"] = [];
    const keys: Deno.KvKey[] = [];
    const iter = kv.list<PackedCard>(explore.byPointRange(layer.name, hash), {
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
   * From the probes (city layer, around the point) and the counters of the precision-2 cell
   * holding the point (every layer): layers are taken to be as concentrated as the city layer.
   */
  constructor(geo: GeoFilter, probes: ProbeCount[], counts: Map<string, number>) {
    const home = geohashEncode(geo.lon, geo.lat, COUNT_PRECISION);
    const homeArea = cellAreaKm2(home);
    const homeCount = (layer: GeoLayer) => counts.get(countId(layer, home)) ?? 0;
    const even = homeCount(GEO_LAYERS[0]) / homeArea;
    // An overflowing probe bounds the density from below, a whole one measures it; the coarsest
    // whole one has the largest sample.
    let city = even;
    for (const probe of probes) {
      const area = cellAreaKm2(probe.hash);
      city = Math.max(city, probe.found / area);
      if (probe.whole) break;
    }
    // Radius-type tasks are taken to cluster as city ones do, in their counters' proportion.
    const cities = homeCount(GEO_LAYERS[0]);
    let total = 0;
    for (const layer of GEO_LAYERS) {
      const n = homeCount(layer);
      const rho = cities > 0 ? city * n / cities : n / homeArea;
      this.#perLayer.set(layer.name, rho);
      total += rho;
    }
    this.#total = total;
  }

  /**
   * Tasks a cell of the layer is expected to hold, at most `upper` (its precision-2 cell's
   * count): at the local density up to `local` km from the point, farther at its counter's even
   * spread, since a city's density would split a whole country's cells into thousands.
   */
  expected(cell: { layer: GeoLayer; hash: string; size: number; at: number }, local: number) {
    const { layer, hash, size } = cell;
    if (cell.at > local) return size / 32 ** (hash.length - COUNT_PRECISION);
    return Math.min(size, (this.#perLayer.get(layer.name) ?? 0) * cellAreaKm2(hash));
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
