/**
 * The explore planner: every filter offers a driver (a set of index prefixes and the size the
 * counters give it), and the cheapest drives the scan; the others are checked on the facet.
 */
import type { ExploreFilters } from "../domain/explore.ts";
import { geoDriver } from "./explore_plan_geo.ts";
import { bboxDriver } from "./explore_bbox.ts";
import {
  DOC_COST,
  FIRST_BATCH,
  LIST_COST,
  MAX_BATCH,
  MAX_FIRST_BATCH,
  PrefixStream,
  Work,
} from "./explore_stream.ts";
import type { Facet } from "./explore_index.ts";
import { Payment } from "../domain/task.ts";
import { indexCovers } from "./explore_words.ts";
import { explore } from "./keys.ts";
import { GETMANY_MAX } from "./limits.ts";
import { keyId } from "./task_indexes.ts";

/** A query word expanding to more dictionary words than this drives no scan. */
export const MAX_EXPANSION = 32;
/** Keys per getMany: Deno KV's cap. */
const WORD_END = "\u{10FFFF}";

/** One way to scan for a query's matches: index prefixes merged newest first. */
export interface Driver {
  /** Which index drives, for benchmarks and logs. */
  name: string;
  estimate: number;
  /** An upper bound of the size when the estimate may be far too low (geo). */
  upper?: number;
  /**
   * True when its entries carry a card but no words, so that with a search every candidate the
   * facet passes costs a document read to learn its words (geo, country, name).
   */
  wordsFromDocs: boolean;
  /**
   * Its streams; `depth`, the share of its entries the page is expected to read (0 to 1), sizes
   * the first lists of the drivers whose counters are exact (geo and bbox size their own).
   */
  streams: (depth?: number) => PrefixStream[];
}

/** A first batch of at least `batch`, deep enough for `expected` entries (within `MAX_BATCH`). */
function deepBatch(batch: number, expected: number): number {
  return Math.max(batch, Math.min(MAX_BATCH, Math.ceil(expected) + 1));
}

/** Where the scan starts and how large a page it fills. */
export interface PlanQuery {
  filters: ExploreFilters;
  /** The order key to resume below, or null for the first page. */
  after: string | null;
  limit: number;
  work: Work;
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
export async function planScan(kv: Deno.Kv, query: PlanQuery): Promise<Driver> {
  const { filters, after, work } = query;
  // A page needs limit + 1 matches: a first batch smaller than that takes a second round trip
  // even when every entry matches.
  const batch = Math.min(MAX_FIRST_BATCH, Math.max(FIRST_BATCH, query.limit + 1));
  const prefixStreams = (prefixes: Deno.KvKey[], sizes: number[] = []) => (depth = 0) =>
    prefixes.map((prefix, i) =>
      new PrefixStream(kv, {
        prefix,
        before: after,
        work,
        batch: deepBatch(batch, depth * (sizes[i] ?? 0)),
      })
    );
  const classes: Payment[] = filters.payment === undefined
    ? [...Payment.options]
    : [filters.payment];
  const base = (sizes: number[]): Driver => ({
    name: filters.payment === undefined ? "all" : "payment",
    estimate: sizes.reduce((a, b) => a + b, 0),
    wordsFromDocs: false,
    streams: prefixStreams(classes.map((c) => explore.allPrefix(c)), sizes),
  });
  const hasIndexedFilter = filters.geo || filters.countryCode !== undefined ||
    filters.cityName !== undefined || filters.regionName !== undefined ||
    filters.search.length > 0 || filters.bbox !== undefined;
  if (!hasIndexedFilter) return base([]);

  const counts = counterReader(kv, work);
  // Both classes, whatever the query asks for: their sum sizes the other filters' pass rates.
  const classCounts = counts(Payment.options.map((c) => explore.countByPayment(c)));
  const pending: Promise<Driver | null>[] = [
    classCounts.then((n) => base(classes.map((c) => n[Payment.options.indexOf(c)]))),
  ];
  if (filters.geo) pending.push(geoDriver(kv, counts, { ...query, geo: filters.geo }));
  if (filters.bbox) pending.push(bboxDriver(kv, counts, { ...query, bbox: filters.bbox }));
  if (filters.countryCode !== undefined) {
    const cc = filters.countryCode;
    pending.push(
      counts([explore.count("country", cc)]).then(([n]) => ({
        name: "country",
        estimate: n,
        wordsFromDocs: true,
        streams: prefixStreams([explore.byCountryPrefix(cc)], [n]),
      })),
    );
  }
  if (filters.cityName !== undefined) {
    const name = filters.cityName;
    pending.push(
      counts([explore.count("name", name, "city")]).then(([n]) => ({
        name: "cityName",
        estimate: n,
        wordsFromDocs: true,
        streams: prefixStreams([explore.byNamePrefix(name, "city")], [n]),
      })),
    );
  } else if (filters.regionName !== undefined) {
    const name = filters.regionName;
    pending.push(
      counts([explore.count("name", name, "city"), explore.count("name", name, "other")])
        .then(([a, b]) => ({
          name: "regionName",
          estimate: a + b,
          wordsFromDocs: true,
          streams: prefixStreams([
            explore.byNamePrefix(name, "city"),
            explore.byNamePrefix(name, "other"),
          ], [a, b]),
        })),
    );
  }
  const wordPending: Promise<Driver[]>[] = [];
  if (filters.search.length > 0) {
    const overflow = counts([explore.count("overflow")]).then(([n]) => n);
    const shared = { overflow, after, work, batch };
    for (const word of filters.search) wordPending.push(wordDrivers(kv, word, shared));
  }
  const drivers = [
    ...(await Promise.all(pending)).filter((d): d is Driver => d !== null),
    ...(await Promise.all(wordPending)).flat(),
  ];
  // A scan's length to fill a page is about proportional to its driver's size, but not its cost
  // per candidate: with a search, a geo, country or name scan reads a document for every
  // candidate its facet passes, only to learn the words, while a word scan rejects on the facet
  // alone. Against a word scan, whose count is exact, a geo scan counts at its upper bound: its
  // estimate assumes tasks spread evenly over coarse cells, far too low for a circle on a city
  // (docs/explore.md, "Planner").
  const cost = (d: Driver) =>
    filters.search.length > 0 && d.wordsFromDocs
      ? (d.upper ?? d.estimate) * (1 + DOC_COST)
      : d.estimate;
  // Ties go to the narrower index: the base one comes first and is only kept when strictly smaller.
  const best = drivers.reduce((best, d) => (cost(d) <= cost(best) ? d : best));
  // The other filters pass about the share of tasks their own counts hold (taken as
  // independent), so the page reads about (limit + 1) / that share of the driver's entries:
  // asked for in its first lists, a search within a circle reads the word's entries down to
  // there in one list instead of one round trip per doubled batch.
  const total = Math.max(1, (await classCounts).reduce((a, b) => a + b, 0));
  const pass = drivers.reduce((p, d) => d === best ? p : p * Math.min(1, d.estimate / total), 1);
  const depth = Math.min(1, (query.limit + 1) / Math.max(1, best.estimate * pass));
  return { ...best, streams: () => best.streams(depth) };
}

/** The dictionary words a query word starts, and how many tasks hold them; null past the cap. */
async function expandWord(
  kv: Deno.Kv,
  prefix: string,
  work: Work,
): Promise<{ words: string[]; sizes: number[]; total: number } | null> {
  const words: string[] = [];
  const sizes: number[] = [];
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
    sizes.push(n);
    total += n;
  }
  work.lists++;
  work.units += LIST_COST + listed;
  if (words.length > MAX_EXPANSION || listed === MAX_EXPANSION * 2) return null;
  return { words, sizes, total };
}

/** What the drivers of every query word share: the overflow count, read once per plan. */
interface WordPlan {
  /** Tasks with more words than are indexed, which every search reads too. */
  overflow: Promise<number>;
  after: string | null;
  work: Work;
  /** Entries of each stream's first read. */
  batch: number;
}

/**
 * A query word drives by the dictionary words it starts, plus the overflow tasks; not when it
 * could start a word the index leaves out (see `indexCovers`): another driver then scans.
 */
async function wordDrivers(
  kv: Deno.Kv,
  prefix: string,
  shared: WordPlan,
): Promise<Driver[]> {
  const { overflow, after, work, batch } = shared;
  if (!indexCovers(prefix)) return [];
  // Most query words are whole words, which expand to themselves alone: their first batch, read
  // alongside the dictionary, is then the stream's, and the page waits one round trip less.
  const [expansion, extra, guess] = await Promise.all([
    expandWord(kv, prefix, work),
    overflow,
    after === null ? firstWordBatch(kv, prefix, { work, batch }) : null,
  ]);
  if (!expansion) return [];
  const prefixes = expansion.words.map((w) => explore.byWordPrefix(w));
  // Counters are exact: without overflow tasks, the overflow index is empty and is not read.
  const sizes = [...expansion.sizes];
  if (extra > 0) {
    prefixes.push(explore.overflowPrefix());
    sizes.push(extra);
  }
  // Checked entry by entry: a word written between the two reads would sort among them.
  const only = expansion.words.length === 1 ? expansion.words[0] : null;
  const guessed = only !== null && guess?.every((e) => e.key[1] === only) ? guess : null;
  return [{
    name: "search",
    estimate: expansion.total + extra,
    wordsFromDocs: false,
    streams: (depth = 0) =>
      prefixes.map((p, i) => {
        // A word read alone holds the whole page; merged words share it.
        const first = i === 0 && only !== null ? batch : FIRST_BATCH;
        const deep = deepBatch(first, depth * sizes[i]);
        const stream = new PrefixStream(kv, { prefix: p, before: after, work, batch: deep });
        if (i === 0 && guessed) {
          stream.preload(guessed, batch);
          stream.expect(deep - batch);
        }
        return stream;
      }),
  }];
}

/**
 * The newest entries of every word a query word starts, as one list: while they are of one word
 * only (known once the dictionary is read), they are that word's newest entries.
 */
async function firstWordBatch(
  kv: Deno.Kv,
  prefix: string,
  { work, batch }: { work: Work; batch: number },
): Promise<Deno.KvEntry<Facet>[]> {
  const entries: Deno.KvEntry<Facet>[] = [];
  const iter = kv.list<Facet>(
    { start: explore.byWordPrefix(prefix), end: explore.byWordPrefix(prefix + WORD_END) },
    { reverse: true, limit: batch, batchSize: batch },
  );
  for await (const entry of iter) entries.push(entry);
  work.lists++;
  work.entries += entries.length;
  work.units += LIST_COST + entries.length;
  return entries;
}
