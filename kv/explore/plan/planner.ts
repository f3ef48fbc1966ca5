/**
 * The explore planner: every filter offers a driver (a set of index prefixes and the size the
 * counters give it), and the cheapest drives the scan; the others are checked on the facet.
 */
import { deepBatch, type Driver, type PlanQuery } from "./driver.ts";
import { FIRST_BATCH, MAX_FIRST_BATCH, PrefixStream } from "../scan/stream.ts";
import { indexCovers } from "../index/indexed_words.ts";
import { explore } from "../../keyspace.ts";
import { planMemory, undrivenKey } from "../shared/plan_memory.ts";
import { counterReader, rememberedCounters } from "./counters.ts";
import { adoptEarly, type EarlyLists, sendEarly } from "./early_lists.ts";
import { offerDrivers, type PlanSource } from "./offers.ts";
import { cheapestPlan, DEPTH_MARGIN, type Plan, UNDRIVEN_SHARE } from "./price.ts";

/**
 * The candidate drivers of a query, with estimated sizes; the smallest wins. A search this
 * instance has planned before also sends, with the fresh reads, the lists a plan made from its
 * memory would read first (`early_lists.ts`): the fresh plan takes those it asks for.
 */
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
  // Every class's documents are one newest-first list: a page without payment reads that one.
  const documents = filters.payment === undefined
    ? explore.newestPrefix()
    : explore.allPrefix(filters.payment);
  const base = (sizes: number[]): Driver => {
    const estimate = sizes.reduce((a, b) => a + b, 0);
    return {
      name: filters.payment === undefined ? "all" : "payment",
      estimate,
      wordsFromDocs: false,
      streams: prefixStreams([documents], [estimate]),
    };
  };
  const placed = filters.geo || filters.countryCode !== undefined ||
    filters.cityName !== undefined || filters.regionName !== undefined ||
    filters.bbox !== undefined;
  if (!placed && !filters.search.some(indexCovers)) {
    // Nothing but the documents can drive, so no counter is worth waiting for: the first list
    // goes with the purges, as deep as the query words' assumed share asks (a page without
    // search, its own depth).
    const memory = planMemory(kv);
    const key = undrivenKey(filters.search, filters.hasSpots);
    // The share this search last kept, where the instance has run it: the assumed one is far off
    // for a word in most tasks (`the`) and for one in few.
    const share = filters.search.length === 0
      ? 1
      : memory.shares.get(key) ?? UNDRIVEN_SHARE ** filters.search.length;
    const first = deepBatch(batch, share < 1 ? DEPTH_MARGIN * (query.limit + 1) / share : 0);
    // The documents the page is expected to read, with two standard deviations and two more: a
    // list cut short costs a round trip, an entry too many only its read.
    const expected = (query.limit + 1) / share;
    const sized = Math.min(
      first,
      Math.max(batch, Math.ceil(expected + 2 * Math.sqrt(expected)) + 2),
    );
    return {
      ...base([]),
      finalShare: share,
      learnShare: filters.search.length === 0
        ? undefined
        : (measured) => memory.shares.set(key, measured),
      streams:
        () => [new PrefixStream(kv, { prefix: documents, before: after, work, batch: sized })],
    };
  }

  const named = soleName(filters);
  if (named) {
    // Its index holds the matches only, so it drives whatever the counters say, and a first
    // list of a page's depth reads the page: no counter is worth a round trip.
    return {
      name: named.name,
      estimate: 0,
      wordsFromDocs: true,
      streams: () => prefixStreams(named.prefixes, named.prefixes.map(() => query.limit + 1))(1),
    };
  }

  const memory = planMemory(kv);
  const shared = { memory, base, prefixStreams, batch };
  const fresh = choosePlan(kv, query, { ...shared, counts: counterReader(kv, work, memory) });
  let early: EarlyLists | null = null;
  if (filters.search.length > 0) {
    // Reads nothing, so it settles before any fresh read answers: its lists go out beside them.
    const dry = { missed: false };
    const guess = await choosePlan(kv, { ...query, dry: true }, {
      ...shared,
      counts: rememberedCounters(memory, dry),
      dry,
    });
    if (!dry.missed && !guess.driver.probed) {
      early = sendEarly(guess.driver.streams(guess.depth, widen(guess.finalShare)));
    }
  }
  const { driver, depth, finalShare, learnShare } = await fresh;
  const streams = driver.streams(depth, widen(finalShare));
  const taken = early ? await adoptEarly(streams, early) : streams;
  return { ...driver, finalShare, learnShare, streams: () => taken };
}

/**
 * The driver's name and prefixes of a query whose one filter is a city, region or country (with
 * spots left or not): any other filter (payment, search, a place) leaves it to the counters.
 */
function soleName(
  filters: PlanQuery["filters"],
): { name: string; prefixes: Deno.KvKey[] } | null {
  const { cityName, regionName, countryCode } = filters;
  const others = filters.payment !== undefined || filters.search.length > 0 || filters.geo ||
    filters.bbox;
  const names = [cityName, regionName, countryCode].filter((n) => n !== undefined);
  if (others || names.length !== 1) return null;
  if (cityName !== undefined) {
    return { name: "cityName", prefixes: [explore.byNamePrefix(cityName, "city")] };
  }
  if (regionName !== undefined) {
    return {
      name: "regionName",
      prefixes: [
        explore.byNamePrefix(regionName, "city"),
        explore.byNamePrefix(regionName, "other"),
      ],
    };
  }
  return { name: "country", prefixes: [explore.byCountryPrefix(countryCode!)] };
}

/** Most a geo or bbox driver's first lists are deepened for the final check's expected share. */
const MAX_WIDEN = 4;

/**
 * How much deeper a geo or bbox driver's first lists read (they size themselves for the matches
 * of the place alone) when the final check keeps only `finalShare` of the candidates: a search
 * within a circle by a word no index drives refilled every stream, a list each, round after round.
 */
function widen(finalShare: number): number {
  return Math.min(MAX_WIDEN, 1 / Math.max(1e-9, finalShare));
}

/** The cheapest plan from the drivers the query's filters offer. */
async function choosePlan(kv: Deno.Kv, query: PlanQuery, source: PlanSource): Promise<Plan> {
  return cheapestPlan(query, await offerDrivers(kv, query, source), source);
}
