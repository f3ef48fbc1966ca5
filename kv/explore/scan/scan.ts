/**
 * Explore's scan: candidates taken from the driver's merged streams newest first, checked on their
 * facets, their documents read where the page needs them, until the page fills or the budget ends.
 */
import { type ExploreFilters, type ExploreItem } from "../../../domain/explore.ts";
import { type PackedDoc } from "../index/card.ts";
import { PageAssembly, type PageItems } from "./page.ts";
import { GETMANY_MAX } from "../../store/limits.ts";
import { DOC_COST, type Work } from "./work.ts";
import { type Candidate } from "./candidate.ts";
import { type UnionStream } from "./union.ts";
import { facetMatch, finalMatch, needsDoc, surelyWithin, withinReach } from "./checks.ts";
import { explore } from "../../keyspace.ts";

/** Refills read this many times the entries the pass rate so far says the page still needs. */
const NEED_SLACK = 1.5;
/** How many checked candidates the planner's expected final share counts for. */
const PRIOR_WEIGHT = 4;
/** Final checks a page must have made before its measured share is remembered. */
const MIN_LEARNED = 16;
/** The least share remembered: a first list sized by a smaller one would be most of a class. */
const MIN_SHARE = 0.01;
/** Most documents one chunk reads (in parallel getMany calls) before its matches are counted. */
const MAX_CHUNK_DOCS = 128;

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
  /** The share of candidates passing their entries' check that the final check keeps (planned). */
  finalShare: number;
  /**
   * True when every candidate the driver's entries pass is a match unless its author is hidden
   * (a word entry of the query's only word, with no filter but payment, and a circle if its
   * position is surely inside it): a full page then needs no document, nor any read, for the
   * match that proves another page follows (`holdsMore`).
   */
  sure?: boolean;
  /** Told the final check's measured share when the page ends, if it checked enough to say. */
  learnShare?: (share: number) => void;
  work: Work;
}

/**
 * Candidates taken, passed on their entries and kept by the final check so far. Once the rates
 * are known, a refill reads about what the rest of the page needs instead of doubling its batch,
 * and a chunk reads the documents its matches need in one round trip, not one chunk of `wanted`
 * after another: the final check (the search words on a document, or a word entry's other
 * filters) is where a search within a circle or a common word loses most candidates.
 */
class PassRate {
  taken = 0;
  passed = 0;
  checked = 0;
  matched = 0;
  /** Word entries the circle rejected on their position. */
  placed = 0;

  constructor(private readonly prior: number) {}

  /** The share of passing candidates the final check keeps: the planner's, then measured. */
  get final(): number {
    return (this.matched + PRIOR_WEIGHT * this.prior) / (this.checked + PRIOR_WEIGHT);
  }

  /** A passing candidate whose final check waits for its document, in expected matches. */
  get pending(): number {
    const f = this.final;
    // Fewer expected matches per candidate vary more: read a margin of up to NEED_SLACK.
    return f / (1 + (NEED_SLACK - 1) * (1 - f));
  }

  /** Entries to read for `wanted` more matches at the rates so far; unbounded until one passed. */
  need(wanted: number): number {
    if (this.taken === 0 || this.passed === 0) return Infinity;
    return NEED_SLACK * wanted * this.taken / (this.passed * Math.max(1e-6, this.final));
  }

  /** Counts a final check. */
  check(matched: boolean): void {
    this.checked++;
    if (matched) this.matched++;
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

interface Taken {
  candidate: Candidate;
  pass: boolean;
  /** Its entry's facet check: the distance on a geo query, 0 otherwise; absent without a facet. */
  d?: number | null;
  /** Decided without a document read: the item, or null; undefined until its document is read. */
  item?: ExploreItem | null;
}

interface Chunk {
  taken: Taken[];
  /** True when every stream is spent. */
  exhausted: boolean;
}

/**
 * Candidates until the expected matches reach `wanted` (those whose entries carry all the final
 * check needs are decided at once), the budget is spent (after one at least) or none is left.
 */
async function takeChunk(
  stream: UnionStream,
  wanted: number,
  scan: { filters: ExploreFilters; rate: PassRate; budget: Budget; work: Work },
): Promise<Chunk> {
  const { filters, rate, budget, work } = scan;
  const taken: Taken[] = [];
  let expected = 0;
  let docs = 0;
  while (
    expected < wanted && docs < MAX_CHUNK_DOCS && (taken.length === 0 || !budget.spent)
  ) {
    const candidate = stream.ready
      ? stream.take()
      : await stream.next(rate.need(wanted - expected));
    rate.taken++;
    budget.start();
    if (!candidate) return { taken, exhausted: true };
    // A word entry carries the payment class only: its card, once read, is checked in full.
    const d = candidate.facet ? facetMatch(candidate.facet, filters) : undefined;
    let pass = candidate.facet
      ? d !== null
      : filters.payment === undefined || candidate.payment === filters.payment;
    if (pass && !withinReach(candidate, filters)) {
      pass = false;
      rate.placed++;
      work.placed++;
    }
    if (!pass) {
      taken.push({ candidate, pass });
      continue;
    }
    rate.passed++;
    if (needsDoc(candidate, filters)) {
      docs++;
      expected += rate.pending;
      taken.push({ candidate, pass });
    } else {
      const item = finalMatch(candidate, filters, d);
      rate.check(item !== null);
      if (item) expected++;
      taken.push({ candidate, pass, d, item });
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
  const rate = new PassRate(query.finalShare);
  const scan = { filters, rate, budget: new Budget(query.work, query.budget), work: query.work };
  const page = new PageAssembly(query.limit, query.after);
  const { geo } = filters;
  const within = geo ? (c: Candidate) => surelyWithin(c, geo) : undefined;
  while (true) {
    // A sure page takes the page's matches alone; the one beyond is proved without its document.
    const wanted = query.sure && page.wanted > 1 ? page.wanted - 1 : page.wanted;
    const chunk = await takeChunk(stream, wanted, scan);
    const unread = chunk.taken.filter((c) => c.pass && c.item === undefined);
    const [hidden] = await Promise.all([
      query.hidden,
      loadDocs(kv, unread.map((c) => c.candidate), query),
    ]);
    for (const c of unread) {
      c.item = c.candidate.packed ? finalMatch(c.candidate, filters, c.d) : null;
      rate.check(c.item !== null);
    }
    for (const { candidate, pass, item } of chunk.taken) {
      if (page.full) break;
      const matched = pass && item && !hidden.has(candidate.userId);
      page.offer(candidate.key, matched ? item : null);
    }
    const proved = query.sure && !page.full && page.wanted === 1 && !chunk.exhausted &&
      hidden.size === 0 && stream.holdsMore(filters.payment, within);
    const end = page.full || proved
      ? page.complete()
      : chunk.exhausted
      ? page.last()
      : scan.budget.spent
      ? page.cutShort()
      : null;
    if (end) {
      if (query.learnShare && rate.checked >= MIN_LEARNED) {
        // What the circle rejected on positions counts as checked: the share stays the one of the
        // candidates that passed their entries' payment check.
        query.learnShare(Math.max(MIN_SHARE, rate.matched / (rate.checked + rate.placed)));
      }
      return end;
    }
  }
}

/**
 * Reads the documents of the candidates whose entries do not hold what the page needs (the
 * card, and the search words when there is a search), ten keys per getMany, all at once.
 */
async function loadDocs(kv: Deno.Kv, candidates: Candidate[], query: ScanQuery): Promise<void> {
  const { work } = query;
  const missing = candidates.filter((c) => needsDoc(c, query.filters));
  const groups: Candidate[][] = [];
  for (let i = 0; i < missing.length; i += GETMANY_MAX) {
    groups.push(missing.slice(i, i + GETMANY_MAX));
  }
  await Promise.all(groups.map(async (group) => {
    const keys = group.map((c) => explore.all(c.payment, c.key));
    const entries = await kv.getMany<PackedDoc[]>(keys);
    // A document gone since its entry was listed (deleted or changed in between) leaves no card.
    entries.forEach((entry, i) => group[i].load(entry.value));
  }));
  work.docs += missing.length;
  work.units += missing.length * DOC_COST;
}
