/**
 * The inverted index of alerts, as pure functions: where an alert is filed (its anchors, from its
 * most selective filter) and where a new task looks (its probes). Every alert a task can match is
 * filed under one of the task's probes, so matching reads a few index places, never every alert.
 */
import { normalizeName } from "../explore.ts";
import { coverCircle } from "../geo/geohash_cover.ts";
import { geohashEncode } from "../geo/geohash.ts";
import { searchTerms, type TaskRecord } from "../tasks/task.ts";
import type { AlertCriteria } from "./alert.ts";

/**
 * A place in the index. `name`: a city or region name (normalized); `country`: a country code;
 * `geo`: a geohash cell of the alert's circle widened by its layer's reach; `word`: the first
 * letters of a search word; `any`: alerts with nothing to file them under (payment, minBudget or
 * words too short), which every task examines (kept on a page read with the word pages).
 */
export type Anchor =
  | { kind: "name"; name: string }
  | { kind: "country"; code: string }
  | { kind: "geo"; layer: number; cell: string }
  | { kind: "word"; prefix: string }
  | { kind: "any" };

/**
 * The task radii each geo layer serves: a city-type task looks in layer 0, a radius-type task in
 * the first layer whose reach is at least its radius. An alert is filed in every layer, its circle
 * widened by the layer's reach, so a task whose own circle reaches the alert's is found there.
 */
export const GEO_REACH_KM: readonly number[] = [0, 25, 100, 500];
/** Precisions of the alerts' geo cells: a task looks up its point's cell at each. */
export const ANCHOR_PRECISIONS: readonly number[] = [2, 3, 4];
/** Most cells a cover may take at a finer precision before a coarser one is used. */
const MAX_COVER_CELLS = 8;
/** Letters of a search word an alert is filed under. */
export const WORD_PREFIX = 3;

/** Where an alert is filed: one family, its most selective filter. */
export function anchorsOf(f: AlertCriteria): Anchor[] {
  if (f.cityName !== undefined) return [{ kind: "name", name: f.cityName }];
  if (f.regionName !== undefined) return [{ kind: "name", name: f.regionName }];
  if (f.geo) {
    const geo = f.geo;
    return GEO_REACH_KM.flatMap((reach, layer) =>
      coverCircle(geo, { extraKm: reach, precisions: ANCHOR_PRECISIONS, maxCells: MAX_COVER_CELLS })
        .cells.map((cell): Anchor => ({ kind: "geo", layer, cell }))
    );
  }
  // The longest word: the fewest tasks share its first letters. A word before a country: a
  // country holds many cities' tasks, and a word page's alerts are checked from memory
  // (kv/alerts/page_memo.ts) where a country's list costs a KV entry per alert, matched or not.
  const word = [...f.search].sort((a, b) => b.length - a.length)[0];
  if (word !== undefined && word.length >= WORD_PREFIX) {
    return [{ kind: "word", prefix: word.slice(0, WORD_PREFIX) }];
  }
  if (f.countryCode !== undefined) return [{ kind: "country", code: f.countryCode }];
  return [{ kind: "any" }];
}

/** Where a new task looks for the alerts it may match. */
export interface TaskProbes {
  names: string[];
  countries: string[];
  geo: { layer: number; cell: string }[];
  /** The first letters of every word of the title and description long enough to be filed. */
  words: string[];
}

/** The layer a task's geo probes read, or null for types that take no part in a geo query. */
export function geoLayerOf(location: TaskRecord["location"]): number | null {
  if (location.type === "city") return 0;
  if (location.type !== "radius") return null;
  const r = location.radiusKm ?? 0;
  const layer = GEO_REACH_KM.findIndex((reach) => r <= reach);
  return layer === -1 ? GEO_REACH_KM.length - 1 : layer;
}

export function taskProbes(
  task: Pick<TaskRecord, "location" | "title" | "description">,
): TaskProbes {
  const loc = task.location;
  const probes: TaskProbes = {
    names: [normalizeName(loc.name)],
    countries: loc.countryCode ? [loc.countryCode] : [],
    geo: [],
    words: [],
  };
  const layer = geoLayerOf(loc);
  if (layer !== null) {
    const [lon, lat] = loc.coordinates;
    const finest = geohashEncode(lon, lat, Math.max(...ANCHOR_PRECISIONS));
    for (const p of ANCHOR_PRECISIONS) probes.geo.push({ layer, cell: finest.slice(0, p) });
  }
  const prefixes = new Set<string>();
  for (const term of searchTerms(task)) {
    if (term.length >= WORD_PREFIX) prefixes.add(term.slice(0, WORD_PREFIX));
  }
  probes.words = [...prefixes];
  return probes;
}
