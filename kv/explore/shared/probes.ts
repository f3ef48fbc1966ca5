/**
 * The point cells a nearest-first walk, a small circle or a small box probes around its point
 * (`probeAround`), read with its counters: every precision asked for, less the finer ones the
 * instance knows would add nothing, and for a circle or a box none it counted a few pages ago.
 */
import type { GeoFilter } from "../../../domain/explore.ts";
import { geohashEncode } from "../../../domain/geo/geohash.ts";
import { PROBE_PRECISIONS } from "./geo_constants.ts";
import { type Probe, probeAround, type ProbeCount, probeCount } from "./density.ts";
import type { PlanMemory } from "./plan_memory.ts";

/**
 * Pages that may size their first lists by a probe's remembered count before it is read again:
 * the density around a place changes slowly against the pages a map asks of it, and a count off
 * by a little costs at most a refill, never an answer.
 */
export const PROBE_REUSE = 16;

/**
 * Reads the probes of `precisions` (coarsest first) around the point, each up to `limit`
 * entries. A finer probe adds nothing once a coarser one is read whole: `Density` takes the
 * coarsest whole probe and looks no further, and the nearest walk holds every task of that cell
 * already (the finer cell's are among them). So a finer probe is left out where this instance
 * last read the coarser cell whole with room to spare (at most half the limit): a list of its own
 * for nothing. Where the cell has filled up since, the coarser probe overflows, bounds the
 * density from below and leaves the finer cell to the walk or the streams, as for any cell denser
 * than a probe reads; the memory then keeps the finer probe from the next page on.
 *
 * A coarser probe that overflowed last time is left out in turn (for `PROBE_REUSE` pages, then
 * read again) when a finer one is read: in a city its entries are the first in key order of a
 * cell kilometres wide, far from the point, and its count only a lower bound, which `counts`
 * carries as remembered. What a page answers does not depend on the probes, only how deep or far
 * it first reads.
 */
export async function probeRemembered(
  kv: Deno.Kv,
  memory: PlanMemory,
  centre: GeoFilter,
  { limit, precisions = PROBE_PRECISIONS }: { limit: number; precisions?: number[] },
): Promise<{ probes: Probe[]; counts: ProbeCount[] }> {
  const wanted: { precision: number; skipped?: ProbeCount }[] = [];
  for (const precision of precisions) {
    const hash = geohashEncode(centre.lon, centre.lat, precision);
    const seen = memory.probes.get(hash);
    const full = seen !== undefined && !seen.whole && seen.found >= limit;
    if (full && seen.skips < PROBE_REUSE && precision !== precisions.at(-1)) {
      seen.skips++;
      wanted.push({ precision, skipped: { hash, found: limit, whole: false } });
      continue;
    }
    wanted.push({ precision });
    if (seen !== undefined && seen.whole && seen.found <= limit / 2) break;
  }
  const read = wanted.filter((w) => !w.skipped).map((w) => w.precision);
  const probes = await Promise.all(probeAround(kv, centre, { limit, precisions: read }));
  for (const probe of probes) {
    memory.probes.set(probe.hash, { found: probe.entries.length, whole: probe.whole, skips: 0 });
  }
  const byPrecision = new Map(probes.map((p) => [p.hash.length, probeCount(p)]));
  const counts = wanted.map((w) => w.skipped ?? byPrecision.get(w.precision)!);
  return { probes, counts };
}

/**
 * The probes' counts for a circle's or box's density (`Density`), which needs no entry of them:
 * those the instance last read around a centre in the same cell of the coarsest probe, for up to
 * `PROBE_REUSE` pages, else read as `probeRemembered` reads them. A nearby centre's finer counts
 * stand for this one's: they only size lists. `read` holds the probes listed, for the page's work.
 */
export async function probeCounts(
  kv: Deno.Kv,
  memory: PlanMemory,
  centre: GeoFilter,
  options: { limit: number; precisions?: number[] },
): Promise<{ counts: ProbeCount[]; read: Probe[] }> {
  const coarsest = Math.min(...(options.precisions ?? PROBE_PRECISIONS));
  const key = geohashEncode(centre.lon, centre.lat, coarsest);
  const seen = memory.densities.get(key);
  if (seen !== undefined && seen.uses < PROBE_REUSE) {
    seen.uses++;
    return { counts: seen.counts, read: [] };
  }
  const { probes, counts } = await probeRemembered(kv, memory, centre, options);
  memory.densities.set(key, { counts, uses: 0 });
  return { counts, read: probes };
}
