/**
 * Explore's scan: candidates taken from the driver's merged streams newest first, checked on their
 * facets, their documents read where the page needs them, until the page fills or the budget ends.
 */
import {
  bboxMatch,
  type ExploreFilters,
  type ExploreItem,
  geoMatch,
  roundKm,
} from "../../domain/explore.ts";
import { matchesTerms } from "../../domain/tasks/task.ts";
import { cardFacet, type Facet, type PackedDoc, readFacet, unpackDoc } from "./explore_index.ts";
import { PageAssembly, type PageItems } from "./explore_page.ts";
import { GETMANY_MAX } from "../store/limits.ts";
import { type Candidate, DOC_COST, type UnionStream, type Work } from "./explore_stream.ts";
import { explore } from "../keyspace.ts";

/** Refills read this many times the entries the pass rate so far says the page still needs. */
const NEED_SLACK = 1.5;

/** What one page's scan is for. */
export interface ScanQuery {
  filters: ExploreFilters;
  /** The order key to resume below, or null for the first page. */
  after: string | null;
  limit: number;
  /** Storage work (see `Work`) after which the page stops early, resumable by its cursor. */
  budget: number;
  /**
   * Authors whose tasks hide while their account's purge runs: read alongside the page's first
   * lists, not before them, and waited for only once a candidate is matched.
   */
  hidden: Promise<Set<string>>;
  work: Work;
}

/**
 * Candidates taken and passed on the facet so far. Doubling batches overshoot a long scan's end
 * by up to half of what it read: once the pass rate is known, a refill reads about what the rest
 * of the page needs.
 */
class PassRate {
  taken = 0;
  passed = 0;

  /** Entries to read for `wanted` more matches at the rate so far; unbounded until one passed. */
  need(wanted: number): number {
    if (this.taken === 0 || this.passed === 0) return Infinity;
    return NEED_SLACK * wanted * this.taken / this.passed;
  }
}

/** The page's storage budget: planning and the first batch of every stream are a fixed fee. */
class Budget {
  #limit = Infinity;

  constructor(private readonly work: Work, private readonly units: number) {}

  /** Counts from here on: called once the first batches are read. */
  start(): void {
    if (this.#limit === Infinity) this.#limit = this.work.units + this.units;
  }

  get spent(): boolean {
    return this.work.units >= this.#limit;
  }
}

interface Chunk {
  taken: { candidate: Candidate; pass: boolean }[];
  /** True when every stream is spent. */
  exhausted: boolean;
}

/** Candidates until `wanted` pass the facet, the budget is spent (after one at least) or none is left. */
async function takeChunk(
  stream: UnionStream,
  wanted: number,
  scan: { filters: ExploreFilters; rate: PassRate; budget: Budget },
): Promise<Chunk> {
  const { filters, rate, budget } = scan;
  const taken: Chunk["taken"] = [];
  let passing = 0;
  while (passing < wanted && (taken.length === 0 || !budget.spent)) {
    const candidate = await stream.next(rate.need(wanted - passing));
    rate.taken++;
    budget.start();
    if (!candidate) return { taken, exhausted: true };
    // A word entry carries the payment class only: its card, once read, is checked in full.
    const pass = candidate.facet
      ? facetMatch(candidate.facet, filters) !== null
      : filters.payment === undefined || candidate.payment === filters.payment;
    taken.push({ candidate, pass });
    if (pass) {
      passing++;
      rate.passed++;
    }
  }
  return { taken, exhausted: false };
}

/** Scans for one page: newest first, below `after`, at most `budget` of storage work. */
export async function scanPage(
  kv: Deno.Kv,
  stream: UnionStream,
  query: ScanQuery,
): Promise<PageItems> {
  const { filters } = query;
  const scan = { filters, rate: new PassRate(), budget: new Budget(query.work, query.budget) };
  const page = new PageAssembly(query.limit, query.after);
  while (true) {
    const chunk = await takeChunk(stream, page.wanted, scan);
    const passing = chunk.taken.filter((c) => c.pass).map((c) => c.candidate);
    const [hidden] = await Promise.all([query.hidden, loadDocs(kv, passing, query)]);
    for (const { candidate, pass } of chunk.taken) {
      if (page.full) break;
      const matched = pass && candidate.card && !hidden.has(candidate.card.userId);
      page.offer(candidate.key, matched ? finalMatch(candidate, filters) : null);
    }
    if (page.full) return page.complete();
    if (chunk.exhausted) return page.last();
    if (scan.budget.spent) return page.cutShort();
  }
}

/**
 * Reads the documents of the candidates whose entries do not hold what the page needs (the
 * card, and the search words when there is a search), ten keys per getMany, all at once.
 */
async function loadDocs(kv: Deno.Kv, candidates: Candidate[], query: ScanQuery): Promise<void> {
  const { work } = query;
  const needsTerms = query.filters.search.length > 0;
  const missing = candidates.filter((c) => !c.card || (needsTerms && !c.terms));
  const groups: Candidate[][] = [];
  for (let i = 0; i < missing.length; i += GETMANY_MAX) {
    groups.push(missing.slice(i, i + GETMANY_MAX));
  }
  await Promise.all(groups.map(async (group) => {
    const keys = group.map((c) => explore.all(c.payment, c.key));
    const entries = await kv.getMany<PackedDoc[]>(keys);
    entries.forEach((entry, i) => {
      if (entry.value) {
        const doc = unpackDoc(entry.value);
        group[i].card = doc;
        group[i].terms = doc.terms;
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
export function facetMatch(facet: Facet, filters: ExploreFilters): number | null {
  const f = readFacet(facet);
  if (filters.payment !== undefined && f.payment !== filters.payment) return null;
  if (filters.countryCode !== undefined && f.countryCode !== filters.countryCode) return null;
  if (filters.regionName !== undefined && f.name !== filters.regionName) return null;
  if (filters.cityName !== undefined && (f.type !== "city" || f.name !== filters.cityName)) {
    return null;
  }
  if (filters.bbox && !bboxMatch(filters.bbox, f.type, f.lon, f.lat)) return null;
  if (!filters.geo) return 0;
  return geoMatch(filters.geo, f);
}

/**
 * The final check, on the card as read (the document's, when it was read after the entry):
 * every filter, search included.
 */
function finalMatch(candidate: Candidate, filters: ExploreFilters): ExploreItem | null {
  const card = candidate.card!;
  const d = facetMatch(cardFacet(card), filters);
  if (d === null) return null;
  // Not in the facet: acceptances rewrite the cards (item), and the facet needs no change.
  if (filters.hasSpots && card.item.spotsLeft === 0) return null;
  if (filters.search.length > 0 && !matchesTerms(filters.search, candidate.terms ?? [])) {
    return null;
  }
  return filters.geo ? { ...card.item, distanceKm: roundKm(d) } : card.item;
}
