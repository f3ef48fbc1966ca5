/**
 * The planner's prices: the share of candidates each offered driver's filter passes, how deep a
 * driver's scan reads for a page and what that costs; the cheapest driver is the plan.
 */
import type { Driver, PlanQuery } from "./driver.ts";
import { FIRST_BATCH } from "../scan/stream.ts";
import { DOC_COST, LIST_COST } from "../scan/work.ts";
import { circleShareKey, learnShare, type PlanMemory, undrivenKey } from "../shared/plan_memory.ts";
import type { Offers } from "./offers.ts";

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

/** The chosen driver, the share of its entries the page is expected to read, its final share. */
export interface Plan {
  driver: Driver;
  depth: number;
  finalShare: number;
  learnShare?: (share: number) => void;
}

/** The cheapest of the offered drivers, priced with what this instance measured before. */
export function cheapestPlan(
  query: PlanQuery,
  { drivers, undrivenWords, total }: Offers,
  source: { memory: PlanMemory; dry?: { missed: boolean } },
): Plan {
  const { filters } = query;
  // Query words that drive no scan pass their assumed share, checked on the documents, or the
  // share they kept when this instance last ran them alone.
  const undrivenKeyed = undrivenKey(undrivenWords, filters.hasSpots);
  const undriven = undrivenWords.length === 0
    ? 1
    : source.memory.shares.get(undrivenKeyed) ?? UNDRIVEN_SHARE ** undrivenWords.length;
  // The other filters pass about the share of tasks their own counts hold (taken as
  // independent), so the page reads about (limit + 1) / that share of the driver's entries:
  // asked for in its first lists, a search within a circle reads the word's entries down to
  // there in one list instead of one round trip per doubled batch. A word read in the circle's
  // zones only has passed most of the circle already: the circle's share of those zones' tasks
  // (the geo driver's estimate over its cells' count) is what is left to pass.
  // Around a city that estimate runs far low: where the instance has measured what
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
      // A word entry in the circle's zones carries its position: the circle is checked on it.
      if (of.zoned && d.name === "geo") return p;
      return p * share(d, of);
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
  // A word entry in the circle's zones that its position puts out of the circle costs no document.
  const geo = drivers.find((d) => d.name === "geo");
  const docShare = (d: Driver) => d.zoned && geo ? share(geo, d) : 1;
  const cost = (d: Driver) => {
    const docs = (filters.search.length > 0 && d.wordsFromDocs) || d.bare === true;
    const size = docs ? (d.upper ?? d.estimate) : d.estimate;
    const read = Math.min(size, (query.limit + 1) / Math.max(1e-9, passOthers(d)));
    return read * (docs ? 1 + DOC_COST * docShare(d) : 1) +
      (d.lists ?? 0) * (LIST_COST + FIRST_BATCH) +
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
