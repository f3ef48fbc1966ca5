/**
 * The explore planner: every filter offers a driver (a set of index prefixes and the size the
 * counters give it), and the cheapest drives the scan; the others are checked on the facet.
 */
import {
  type CounterReader,
  deepBatch,
  type Driver,
  entriesSure,
  type PlanQuery,
} from "./explore_driver.ts";
import { geoDriver } from "./geo/explore_plan_geo.ts";
import { bboxDriver } from "./geo/explore_bbox.ts";
import {
  DOC_COST,
  FIRST_BATCH,
  LIST_COST,
  MAX_FIRST_BATCH,
  PrefixStream,
} from "../scan/explore_stream.ts";
import { Payment } from "../../../domain/tasks/task.ts";
import { wordDrivers } from "./words/explore_plan_words.ts";
import { epochDrivers } from "./words/explore_word_epochs.ts";
import { indexCovers } from "../index/explore_words.ts";
import { explore } from "../../keyspace.ts";
import {
  circleShareKey,
  learnShare,
  type PlanMemory,
  planMemory,
  undrivenKey,
} from "./explore_plan_memory.ts";
import { classBatches, counterReader, rememberedCounters } from "./explore_plan_counters.ts";
import { adoptEarly, type EarlyLists, sendEarly } from "./explore_plan_early.ts";

/**
 * The share of tasks a query word that drives no scan is taken to hold, to size first reads:
 * such a word could start an unindexed word (a function word, a short prefix) or starts too many
 * words, so it is common. The page then measures its real share.
 */
export const UNDRIVEN_SHARE = 0.25;
/**
 * A first read sized by the page's expected depth reads this much more when other filters must
 * pass: at the estimate itself, about half the pages of a common word fell short by a few
 * matches and waited for another round trip.
 */
export const DEPTH_MARGIN = 1.5;

/**
 * The share of a word's candidates in the zones that reach a search circle that the circle is
 * taken to keep when sizing the first documents read: the even spread over the zones runs about
 * ten times low around a city (docs/explore.md, "Planner"); the page then measures it.
 */
export const ZONED_CIRCLE_SHARE = 0.5;

/**
 * What a driver whose candidates wait for their documents pays for that wait, in units of one
 * listed entry (ten lists' worth): its page waits for a round trip more than one whose entries
 * are the documents, and a word in a tenth of 2,000 tasks, its zones now read in a few ranges,
 * took a page of 1 round trip to 2 for a few dozen entries fewer.
 */
export const DOCS_TRIP_COST = 10 * LIST_COST;

/**
 * The share of a measured circle share (`circleShareKey`) a plan counts on: the measure averages
 * pages that vary, and a page whose circle keeps less than that read its documents twice, a
 * round trip more.
 */
export const KEPT_MARGIN = 0.8;

/**
 * The candidate drivers of a query, with estimated sizes; the smallest wins. A search this
 * instance has planned before also sends, with the fresh reads, the lists a plan made from its
 * memory would read first (`explore_plan_early.ts`): the fresh plan takes those it asks for.
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
  const classes: Payment[] = filters.payment === undefined
    ? [...Payment.options]
    : [filters.payment];
  const base = (sizes: number[]): Driver => ({
    name: filters.payment === undefined ? "all" : "payment",
    estimate: sizes.reduce((a, b) => a + b, 0),
    wordsFromDocs: false,
    streams: prefixStreams(classes.map((c) => explore.allPrefix(c)), sizes),
  });
  const placed = filters.geo || filters.countryCode !== undefined ||
    filters.cityName !== undefined || filters.regionName !== undefined ||
    filters.bbox !== undefined;
  if (!placed && !filters.search.some(indexCovers)) {
    // Nothing but the documents can drive, so no counter is worth waiting for: the first lists
    // go with the purges, as deep as the query words' assumed share asks.
    const memory = planMemory(kv);
    const key = undrivenKey(filters.search, filters.hasSpots);
    // The share this search last kept, where the instance has run it: the assumed one is far off
    // for a word in most tasks (`the`) and for one in few.
    const share = filters.search.length === 0
      ? 1
      : memory.shares.get(key) ?? UNDRIVEN_SHARE ** filters.search.length;
    const first = deepBatch(batch, share < 1 ? DEPTH_MARGIN * (query.limit + 1) / share : 0);
    const sized = classBatches(memory, classes, { first, expected: (query.limit + 1) / share });
    return {
      ...base([]),
      finalShare: share,
      learnShare: filters.search.length === 0
        ? undefined
        : (measured) => memory.shares.set(key, measured),
      streams: () =>
        classes.map((c, i) =>
          new PrefixStream(kv, {
            prefix: explore.allPrefix(c),
            before: after,
            work,
            batch: sized[i],
          })
        ),
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

/** What a plan is made from: counters (read or remembered) and the base driver's builders. */
interface PlanSource {
  counts: CounterReader;
  memory: PlanMemory;
  /** Set for a plan from memory alone (see `WordPlan.dry`). */
  dry?: { missed: boolean };
  base: (sizes: number[]) => Driver;
  prefixStreams: (prefixes: Deno.KvKey[], sizes?: number[]) => Driver["streams"];
  batch: number;
}

/** The chosen driver, the share of its entries the page is expected to read, its final share. */
interface Plan {
  driver: Driver;
  depth: number;
  finalShare: number;
  learnShare?: (share: number) => void;
}

async function choosePlan(kv: Deno.Kv, query: PlanQuery, source: PlanSource): Promise<Plan> {
  const { filters, after, work } = query;
  const { counts, base, prefixStreams, batch } = source;
  const classes: Payment[] = filters.payment === undefined
    ? [...Payment.options]
    : [filters.payment];
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
    const needsCards = filters.geo !== undefined || filters.bbox !== undefined ||
      filters.countryCode !== undefined || filters.cityName !== undefined ||
      filters.regionName !== undefined;
    const shared = {
      overflow,
      after,
      work,
      batch,
      geo: filters.geo ?? null,
      needsCards,
      sure: entriesSure(filters),
      memory: source.memory,
      dry: source.dry ?? null,
    };
    // Without a circle, a word's epochs are read whole: its zones are not worth listing.
    const drive = filters.geo ? wordDrivers : epochDrivers;
    for (const word of filters.search) wordPending.push(drive(kv, word, shared));
  }
  const words = await Promise.all(wordPending);
  const drivers = [
    ...(await Promise.all(pending)).filter((d): d is Driver => d !== null),
    ...words.flat(),
  ];
  // Query words that drive no scan pass their assumed share, checked on the documents, or the
  // share they kept when this instance last ran them alone.
  const undrivenWords = filters.search.filter((_, i) => words[i].length === 0);
  const undrivenKeyed = undrivenKey(undrivenWords, filters.hasSpots);
  const undriven = undrivenWords.length === 0
    ? 1
    : source.memory.shares.get(undrivenKeyed) ?? UNDRIVEN_SHARE ** undrivenWords.length;
  const total = Math.max(1, (await classCounts).reduce((a, b) => a + b, 0));
  // The other filters pass about the share of tasks their own counts hold (taken as
  // independent), so the page reads about (limit + 1) / that share of the driver's entries:
  // asked for in its first lists, a search within a circle reads the word's entries down to
  // there in one list instead of one round trip per doubled batch. A word read in the circle's
  // zones only has passed most of the circle already: the circle's share of those zones' tasks
  // (the geo driver's estimate over its cells' count) is what is left to pass.
  // Around a city that estimate runs about ten times low: where the instance has measured what
  // such circles keep (`circleShareKey`), the measure stands for it, in the final share too, at
  // `KEPT_MARGIN` of it.
  const circleKey = circleShareKey(filters);
  const measured = circleKey === null ? undefined : source.memory.shares.get(circleKey);
  const kept = measured === undefined ? undefined : measured * KEPT_MARGIN;
  const share = (d: Driver, of: Driver) =>
    of.zoned && d.name === "geo" && d.upper
      ? kept ?? Math.min(1, d.estimate / d.upper)
      : Math.min(1, d.estimate / total);
  const passOthers = (of: Driver) =>
    drivers.reduce((p, d) => d === of ? p : p * share(d, of), undriven);
  // What the final check on the documents passes: the search words for a driver whose entries
  // carry a facet, every filter but payment for a word entry (the base driver is payment's).
  const isBase = (d: Driver) => d.name === "all" || d.name === "payment";
  const finalShare = (of: Driver) =>
    drivers.reduce((p, d) => {
      if (d === of || (of.bare ? isBase(d) : !d.bare)) return p;
      const s = share(d, of);
      return p * (of.zoned && d.name === "geo" ? kept ?? Math.max(s, ZONED_CIRCLE_SHARE) : s);
    }, undriven);
  // A scan's length to fill a page is about proportional to its driver's size, but not its cost
  // per candidate: with a search, a geo, country or name scan reads a document for every
  // candidate its facet passes, only to learn the words, while a word scan rejects on the facet
  // alone. Against a word scan, whose count is exact, a geo scan counts at its upper bound: its
  // estimate assumes tasks spread evenly over coarse cells, far too low for a circle on a city
  // (docs/explore.md, "Planner"). A word read zone by zone also pays its lists, and a document
  // for every candidate: its entry holds no card to show.
  const depthOf = (d: Driver) => {
    const pass = passOthers(d);
    const margin = pass < 1 ? DEPTH_MARGIN : 1;
    return Math.min(1, margin * (query.limit + 1) / Math.max(1, d.estimate * pass));
  };
  const cost = (d: Driver) => {
    const docs = (filters.search.length > 0 && d.wordsFromDocs) || d.bare === true;
    const size = docs ? (d.upper ?? d.estimate) : d.estimate;
    const read = Math.min(size, (query.limit + 1) / Math.max(1e-9, passOthers(d)));
    return read * (docs ? 1 + DOC_COST : 1) + (d.lists ?? 0) * (LIST_COST + FIRST_BATCH) +
      (docs ? DOCS_TRIP_COST : 0) + (d.wholeRead?.(depthOf(d)) ?? 0);
  };
  // Ties go to the narrower index: the base one comes first and is only kept when strictly smaller.
  const best = drivers.reduce((best, d) => (cost(d) <= cost(best) ? d : best));
  const depth = depthOf(best);
  // Where the final check is the undriven words' alone, the page measures their share.
  const learns = undrivenWords.length > 0 && undrivenWords.length === filters.search.length &&
    !best.bare && source.dry === undefined;
  const learnsCircle = circleKey !== null && best.zoned && source.dry === undefined;
  return {
    driver: best,
    depth,
    finalShare: finalShare(best),
    learnShare: learns
      ? (measured) => source.memory.shares.set(undrivenKeyed, measured)
      : learnsCircle
      ? (measured) => learnShare(source.memory, circleKey, measured)
      : undefined,
  };
}
