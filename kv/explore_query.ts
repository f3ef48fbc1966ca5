/**
 * GET /tasks/explore over the explore indexes: the planner picks the index that the counters say
 * is most selective, scans it newest first and checks every other filter on the facet each entry
 * carries; search words are checked on the document, which the page needs anyway. A page stops
 * at a fixed storage budget, so no query scans the whole store.
 */
import { coverCircle, EARTH_RADIUS_KM, geohashBounds } from "../domain/geo.ts";
import {
  bboxMatch,
  type ExploreFilters,
  type ExploreItem,
  type GeoFilter,
  geoMatch,
  roundKm,
} from "../domain/explore.ts";
import { matchesTerms } from "../domain/task.ts";
import {
  COUNT_PRECISION,
  type ExploreDoc,
  type Facet,
  GEO_LAYERS,
  inFarZone,
  NEAR_REACH_KM,
  TYPE_CODES,
  ZONE_PRECISION,
} from "./explore_index.ts";
import {
  type Candidate,
  DOC_COST,
  ENTRY_COST,
  FIRST_BATCH,
  LIST_COST,
  MAX_FIRST_BATCH,
  PrefixStream,
  UnionStream,
  Work,
} from "./explore_stream.ts";
import { explore, type PaidClass } from "./keys.ts";
import { keyId } from "./task_indexes.ts";
import { pendingPurges } from "./users.ts";
import { bboxDriver } from "./explore_bbox.ts";

/** A page of results and the order key to resume after, or null on the last page. */
export interface ExplorePage {
  items: ExploreItem[];
  next: string | null;
  /** Which index drove the scan, and the storage work done: for benchmarks and logs. */
  plan: string;
  work: Work;
}

export interface ExploreOptions {
  /** Storage work (see `Work`) after which a page stops early, resumable by its cursor. */
  budget?: number;
}

/** About 20 ms of storage work on the local backend (units of ~3 µs). */
export const DEFAULT_BUDGET = 7000;
/** Refills read this many times the entries the pass rate so far says the page still needs. */
const NEED_SLACK = 1.5;
/** A query word expanding to more dictionary words than this drives no scan. */
export const MAX_EXPANSION = 32;

const GETMANY_MAX = 10;
const WORD_END = "\u{10FFFF}";

export interface Driver {
  name: string;
  estimate: number;
  /** An upper bound of the size when the estimate may be far too low (geo). */
  upper?: number;
  streams: () => PrefixStream[];
}

/** A page of explore results strictly older than `after` (an order key), newest first. */
export async function exploreTasks(
  kv: Deno.Kv,
  filters: ExploreFilters,
  after: string | null,
  limit: number,
  options: ExploreOptions = {},
): Promise<ExplorePage> {
  const work = new Work();
  const budget = options.budget ?? DEFAULT_BUDGET;
  const needsTerms = filters.search.length > 0;
  if (
    filters.cityName !== undefined && filters.regionName !== undefined &&
    filters.cityName !== filters.regionName
  ) {
    return { items: [], next: null, plan: "none", work };
  }
  const [driver, hidden] = await Promise.all([
    planScan(kv, filters, after, limit, work),
    pendingPurges(kv),
  ]);
  // Planning and the first batch of every stream are a fixed fee; the budget bounds the rest.
  let limitUnits = Infinity;
  const stream = new UnionStream(driver.streams());
  const results: { key: string; result: ExploreItem }[] = [];
  let frontier = after;
  let exhausted = false;
  // Candidates taken from the stream and how many passed the facet, for the refill size.
  let consumed = 0;
  let passed = 0;
  // One more than the page: finding it is what proves that another page follows.
  while (results.length <= limit && !exhausted) {
    const want = limit + 1 - results.length;
    const chunk: { candidate: Candidate; pass: boolean }[] = [];
    let passing = 0;
    while (passing < want && (chunk.length === 0 || work.units < limitUnits)) {
      // Doubling batches overshoot a long scan's end by up to half of what it read: once the
      // pass rate is known, a refill reads about what the rest of the page needs.
      if (consumed > 0 && passed + passing > 0) {
        stream.need = NEED_SLACK * (want - passing) * consumed / (passed + passing);
      }
      const candidate = await stream.next();
      consumed++;
      if (limitUnits === Infinity) limitUnits = work.units + budget;
      if (!candidate) {
        exhausted = true;
        break;
      }
      const pass = facetMatch(candidate.facet, filters) !== null;
      chunk.push({ candidate, pass });
      if (pass) passing++;
    }
    passed += passing;
    await loadDocs(kv, chunk.filter((c) => c.pass).map((c) => c.candidate), needsTerms, work);
    let full = false;
    for (const { candidate, pass } of chunk) {
      if (results.length === limit + 1) {
        full = true;
        break;
      }
      if (results.length < limit) frontier = candidate.key;
      if (!pass || !candidate.card) continue;
      const result = hidden.has(candidate.card.userId) ? null : finalMatch(candidate, filters);
      if (result) results.push({ key: candidate.key, result });
    }
    if (results.length > limit || full) {
      return page(results.slice(0, limit), results[limit - 1].key, driver.name, work);
    }
    if (!exhausted && work.units >= limitUnits) {
      return page(results, frontier, driver.name, work);
    }
  }
  return page(results, null, driver.name, work);
}

function page(
  results: { result: ExploreItem }[],
  next: string | null,
  plan: string,
  work: Work,
): ExplorePage {
  return { items: results.map((r) => r.result), next, plan, work };
}

/**
 * Reads the documents of the candidates whose entries do not hold what the page needs (the
 * card, and the search words when there is a search), ten keys per getMany, all at once.
 */
async function loadDocs(
  kv: Deno.Kv,
  candidates: Candidate[],
  needsTerms: boolean,
  work: Work,
): Promise<void> {
  const missing = candidates.filter((c) => !c.card || (needsTerms && !c.terms));
  const groups: Candidate[][] = [];
  for (let i = 0; i < missing.length; i += GETMANY_MAX) {
    groups.push(missing.slice(i, i + GETMANY_MAX));
  }
  await Promise.all(groups.map(async (group) => {
    const keys = group.map((c) => explore.all(c.facet[2] ? "paid" : "free", c.key));
    const entries = await kv.getMany<ExploreDoc[]>(keys);
    entries.forEach((entry, i) => {
      if (entry.value) {
        group[i].card = entry.value;
        group[i].terms = entry.value.terms;
      } else {
        // Gone since the entry was listed: the task was deleted or changed in between.
        group[i].card = undefined;
      }
    });
  }));
  work.docs += missing.length;
  work.units += missing.length * DOC_COST;
}

/** Every filter but search, on a facet: the distance on a geo query, 0 otherwise, or null. */
export function facetMatch(f: Facet, filters: ExploreFilters): number | null {
  if (filters.payment !== undefined && (f[2] === 1) !== (filters.payment === "Paid")) return null;
  if (filters.countryCode !== undefined && f[5] !== filters.countryCode) return null;
  if (filters.regionName !== undefined && f[6] !== filters.regionName) return null;
  if (filters.cityName !== undefined && (f[3] !== 0 || f[6] !== filters.cityName)) return null;
  if (filters.bbox && !bboxMatch(filters.bbox, TYPE_CODES[f[3]], f[0], f[1])) return null;
  if (!filters.geo) return 0;
  return geoMatch(filters.geo, TYPE_CODES[f[3]], f[0], f[1], f[4]);
}

/**
 * The final check, on the card as read (the document's, when it was read after the entry):
 * every filter, search included.
 */
function finalMatch(candidate: Candidate, filters: ExploreFilters): ExploreItem | null {
  const card = candidate.card!;
  const d = facetMatch(card.facet, filters);
  if (d === null) return null;
  // Not in the facet: acceptances rewrite the cards (item), and the facet needs no change.
  if (filters.hasSpots && card.item.spotsLeft === 0) return null;
  if (filters.search.length > 0 && !matchesTerms(filters.search, candidate.terms ?? [])) {
    return null;
  }
  return filters.geo ? { ...card.item, distanceKm: roundKm(d) } : card.item;
}

/** Reads counters (ten keys per getMany); 0 for a counter never written. */
export type CounterReader = (keys: Deno.KvKey[]) => Promise<number[]>;

/**
 * A counter reader for one plan: drivers overlap (the geo driver and the zones read the same
 * cell counters, the payment and zone shares the same class counters), so each key is read once.
 */
function counterReader(kv: Deno.Kv, work: Work): CounterReader {
  const read = new Map<string, Promise<number>>();
  return (keys) => {
    const fresh = [...new Map(keys.map((k) => [keyId(k), k])).entries()]
      .filter(([id]) => !read.has(id));
    for (let i = 0; i < fresh.length; i += GETMANY_MAX) {
      const group = fresh.slice(i, i + GETMANY_MAX);
      const values = kv.getMany<Deno.KvU64[]>(group.map(([, key]) => key));
      group.forEach(([id], j) =>
        read.set(id, values.then((v) => (v[j].value ? Number(v[j].value.value) : 0)))
      );
    }
    work.units += fresh.length * DOC_COST;
    return Promise.all(keys.map((k) => read.get(keyId(k))!));
  };
}

/** The candidate drivers of a query, with estimated sizes; the smallest wins. */
async function planScan(
  kv: Deno.Kv,
  filters: ExploreFilters,
  after: string | null,
  limit: number,
  work: Work,
): Promise<Driver> {
  const prefixStreams = (prefixes: Deno.KvKey[]) => () =>
    prefixes.map((p) => new PrefixStream(kv, p, after, work));
  const classes: PaidClass[] = filters.payment === undefined
    ? ["paid", "free"]
    : [filters.payment === "Paid" ? "paid" : "free"];
  const base = (estimate: number): Driver => ({
    name: filters.payment === undefined ? "all" : "payment",
    estimate,
    streams: prefixStreams(classes.map((c) => explore.allPrefix(c))),
  });
  const hasIndexedFilter = filters.geo || filters.countryCode !== undefined ||
    filters.cityName !== undefined || filters.regionName !== undefined ||
    filters.search.length > 0 || filters.bbox !== undefined;
  if (!hasIndexedFilter) return base(0);

  const counts = counterReader(kv, work);
  const classCounts = counts(classes.map((c) => explore.count("paid", c)));
  const pending: Promise<Driver | null>[] = [
    classCounts.then((n) => base(n.reduce((a, b) => a + b, 0))),
  ];
  if (filters.geo) pending.push(geoDriver(kv, counts, filters.geo, after, limit, work));
  if (filters.bbox) pending.push(bboxDriver(kv, counts, filters.bbox, after, limit, work));
  if (filters.countryCode !== undefined) {
    const cc = filters.countryCode;
    pending.push(
      counts([explore.count("country", cc)]).then(([n]) => ({
        name: "country",
        estimate: n,
        streams: prefixStreams([explore.byCountryPrefix(cc)]),
      })),
    );
  }
  if (filters.cityName !== undefined) {
    const name = filters.cityName;
    pending.push(
      counts([explore.count("name", name, "city")]).then(([n]) => ({
        name: "cityName",
        estimate: n,
        streams: prefixStreams([explore.byNamePrefix(name, "city")]),
      })),
    );
  } else if (filters.regionName !== undefined) {
    const name = filters.regionName;
    pending.push(
      counts([explore.count("name", name, "city"), explore.count("name", name, "other")])
        .then(([a, b]) => ({
          name: "regionName",
          estimate: a + b,
          streams: prefixStreams([
            explore.byNamePrefix(name, "city"),
            explore.byNamePrefix(name, "other"),
          ]),
        })),
    );
  }
  const wordPending: Promise<Driver[]>[] = [];
  if (filters.search.length > 0) {
    const overflow = counts([explore.count("overflow")]).then(([n]) => n);
    // Every explorable task, whichever payment class the query asks for: zone counters count both.
    const total = counts([explore.count("paid", "paid"), explore.count("paid", "free")])
      .then((n) => n.reduce((a, b) => a + b, 0));
    const zones = filters.geo ? zoneCover(counts, filters.geo, total) : null;
    for (const word of filters.search) {
      wordPending.push(wordDrivers(kv, word, overflow, zones, after, work));
    }
  }
  const drivers = [
    ...(await Promise.all(pending)).filter((d): d is Driver => d !== null),
    ...(await Promise.all(wordPending)).flat(),
  ];
  // A scan's length to fill a page is about proportional to its driver's size, but not its cost
  // per candidate: with a search, a geo, country or name scan reads a document for every
  // candidate its facet passes, only to learn the words, while a word scan rejects on the facet
  // alone (measured at 100k tasks: geo 100 km + search + payment read 512 documents a page).
  // Against a word scan, whose count is exact, a geo scan counts at its upper bound: its estimate
  // assumes tasks spread evenly over coarse cells, and is ~25x low for a circle on a city.
  const cost = (d: Driver) =>
    filters.search.length > 0 && !["search", "searchArea", "all", "payment"].includes(d.name)
      ? (d.upper ?? d.estimate) * (1 + DOC_COST)
      : d.estimate;
  // Ties go to the narrower index: the base one comes first and is only kept when strictly smaller.
  return drivers.reduce((best, d) => (cost(d) <= cost(best) ? d : best));
}

/** The dictionary words a query word starts, and how many tasks hold them; null past the cap. */
async function expandWord(
  kv: Deno.Kv,
  prefix: string,
  work: Work,
): Promise<{ words: string[]; total: number } | null> {
  const words: string[] = [];
  let total = 0;
  const iter = kv.list<Deno.KvU64>(
    { start: explore.word(prefix), end: explore.word(prefix + WORD_END) },
    { limit: MAX_EXPANSION * 2, batchSize: MAX_EXPANSION * 2 },
  );
  let listed = 0;
  for await (const entry of iter) {
    listed++;
    const n = Number(entry.value.value);
    if (n === 0) continue;
    words.push(entry.key[1] as string);
    total += n;
  }
  work.lists++;
  work.units += 30 + listed;
  if (words.length > MAX_EXPANSION || listed === MAX_EXPANSION * 2) return null;
  return { words, total };
}

/**
 * A query word drives by the dictionary words it starts, plus the overflow tasks; with a geo
 * filter, also by those words in the zones around the circle (see `nearZone`).
 */
async function wordDrivers(
  kv: Deno.Kv,
  prefix: string,
  overflow: Promise<number>,
  zones: Promise<ZoneCover | null> | null,
  after: string | null,
  work: Work,
): Promise<Driver[]> {
  const expansion = await expandWord(kv, prefix, work);
  if (!expansion) return [];
  const extra = await overflow;
  const streams = (prefixes: Deno.KvKey[]) => () =>
    [...prefixes, explore.overflowPrefix()].map((p) => new PrefixStream(kv, p, after, work));
  const drivers: Driver[] = [{
    name: "search",
    estimate: expansion.total + extra,
    streams: streams(expansion.words.map((w) => explore.byWordPrefix(w))),
  }];
  const cover = zones && await zones;
  // Zones holding every task would read the same entries as the plain scan, in more lists.
  if (cover && cover.share < 1) {
    drivers.push({
      name: "searchArea",
      estimate: expansion.total * cover.share + extra,
      streams: streams(expansion.words.flatMap((w) => [
        ...cover.cells.map((cell) => explore.byWordNearPrefix(w, cell)),
        explore.byWordFarPrefix(w),
      ])),
    });
  }
  return drivers;
}

/** The near zones a search circle reaches, and the share of explorable tasks they and the far zone hold. */
interface ZoneCover {
  cells: string[];
  share: number;
}

/** Most near zones a search within a circle reads per word before the plain word scan is better. */
export const MAX_ZONE_CELLS = 4;

/**
 * The near zones whose tasks can reach the circle (it widened by `NEAR_REACH_KM`), with the
 * counters' share of all explorable tasks in them plus the far zone; null when the circle needs
 * more than `MAX_ZONE_CELLS` zones (each is a list per word).
 */
async function zoneCover(
  counts: CounterReader,
  geo: GeoFilter,
  total: Promise<number>,
): Promise<ZoneCover | null> {
  const cells = coverCircle(geo.lon, geo.lat, geo.radiusKm, MAX_ZONE_CELLS, {
    precisions: [ZONE_PRECISION],
    extraKm: NEAR_REACH_KM,
  }).cells;
  if (cells.length > MAX_ZONE_CELLS) return null;
  const near = GEO_LAYERS.filter((layer) => !inFarZone(layer));
  const keys = [
    explore.count("far"),
    ...near.flatMap((layer) => cells.map((cell) => explore.count("cell", layer.name, cell))),
  ];
  const n = await counts(keys);
  const all = await total;
  return { cells, share: all > 0 ? Math.min(1, n.reduce((a, b) => a + b, 0) / all) : 1 };
}

// Area of the part of a sphere between two latitudes and two longitudes, in km².
function boxAreaKm2(cell: string): number {
  const b = geohashBounds(cell);
  const rad = Math.PI / 180;
  return EARTH_RADIUS_KM ** 2 * (b.maxLon - b.minLon) * rad *
    Math.abs(Math.sin(b.maxLat * rad) - Math.sin(b.minLat * rad));
}

function capAreaKm2(radiusKm: number): number {
  const angle = Math.min(Math.PI, radiusKm / EARTH_RADIUS_KM);
  return 2 * Math.PI * EARTH_RADIUS_KM ** 2 * (1 - Math.cos(angle));
}

/** Most cells a finer cover may take before the planner stops considering it (CPU bound). */
export const MAX_FINE_CELLS = 32;
/**
 * How much deeper than the even-spread estimate a cover is planned for; 3 read the fewest
 * entries and lists at 100k and 1M bench tasks among 1, 2, 3 and 10.
 */
const SHARE_SAFETY = 3;

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
  parent: string,
  count: number,
  finer: string[][],
  share: number,
): CellPlan[] {
  let best: CellPlan[] = [{ cell: parent, size: count }];
  let bestCost = streamCost(count, share);
  for (const cells of finer) {
    const inside = cells.filter((c) => c.startsWith(parent));
    if (inside.length === 0) continue;
    const size = count / 32 ** (inside[0].length - parent.length);
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
async function geoDriver(
  kv: Deno.Kv,
  counts: CounterReader,
  geo: GeoFilter,
  after: string | null,
  limit: number,
  work: Work,
): Promise<Driver> {
  const layers = GEO_LAYERS.map((layer) => {
    const extraKm = layer.maxRadiusKm;
    const coarse = coverCircle(geo.lon, geo.lat, geo.radiusKm, 1024, {
      precisions: [COUNT_PRECISION],
      extraKm,
    }).cells;
    // Finer covers within MAX_FINE_CELLS; coverCircle falls back to the counters' precision
    // (without enumerating the finer grid) when one would take more.
    const finer = layer.precisions.filter((p) => p > COUNT_PRECISION).map((p) =>
      coverCircle(geo.lon, geo.lat, geo.radiusKm, MAX_FINE_CELLS, {
        precisions: [p, COUNT_PRECISION],
        extraKm,
      })
    ).filter((c) => c.precision > COUNT_PRECISION).map((c) => c.cells);
    return { layer, coarse, finer };
  });
  const counterKeys: Deno.KvKey[] = [];
  for (const { layer, coarse } of layers) {
    for (const cell of coarse) counterKeys.push(explore.count("cell", layer.name, cell));
  }
  const n = await counts(counterKeys);
  let estimate = 0;
  let upper = 0;
  let at = 0;
  const sized = layers.map(({ layer, coarse, finer }) => {
    const parents = coarse.map((cell) => ({ cell, count: n[at++] })).filter((p) => p.count > 0);
    let inCells = 0;
    let area = 0;
    for (const p of parents) {
      inCells += p.count;
      area += boxAreaKm2(p.cell);
    }
    upper += inCells;
    if (inCells > 0) {
      estimate += inCells * Math.min(1, capAreaKm2(geo.radiusKm + layer.maxRadiusKm) / area);
    }
    return { layer, parents, finer };
  });
  // The page ends at the frontier where limit + 1 matches are found; with matches spread evenly
  // in time, every stream is read down to the same share of its entries.
  const share = Math.min(1, (limit + 1) / Math.max(estimate, 1));
  // Covers are chosen as if the page read deeper than that: the estimate counts a radius class
  // up to its largest radius and assumes an even spread, so it runs high outside cities, and a
  // coarse cell read deeper than planned costs in proportion to its whole size.
  const planShare = Math.min(1, SHARE_SAFETY * share);
  const plans: { prefix: Deno.KvKey; batch: number }[] = [];
  for (const { layer, parents, finer } of sized) {
    for (const parent of parents) {
      for (const { cell, size } of cheapestCells(parent.cell, parent.count, finer, planShare)) {
        // One more than expected, so that a stream read whole knows it is done.
        const batch = Math.min(MAX_FIRST_BATCH, Math.max(FIRST_BATCH, Math.ceil(share * size) + 1));
        plans.push({ prefix: explore.byCellPrefix(layer.name, cell), batch });
      }
    }
  }
  return {
    name: "geo",
    estimate,
    upper,
    streams: () => plans.map((p) => new PrefixStream(kv, p.prefix, after, work, p.batch)),
  };
}
