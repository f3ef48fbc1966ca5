/**
 * An in-memory model of explore's word index (bench/explore_data.ts tasks, no KV store): the
 * postings and counters of the queried words, and a page's walk down a word's candidates.
 */
import type { TaskRecord } from "../domain/tasks/task.ts";
import { searchTerms } from "../domain/tasks/task.ts";
import { type ExploreFilters, matchExplore } from "../domain/explore.ts";
import { indexedWords } from "../kv/explore/index/indexed_words.ts";
import { MAX_INDEXED_WORDS, wordZone } from "../kv/explore/index/entries.ts";
import { FIRST_BATCH, MAX_FIRST_BATCH } from "../kv/explore/scan/stream.ts";
import { generateTask } from "./explore_data.ts";

export const DAY_MS = 24 * 3600 * 1000;
/** A first page of 20 needs 21 matches (the cursor's). */
export const NEED = 21;
/** The first batch of a page of 20 (plan/planner.ts). */
export const PAGE_BATCH = Math.min(MAX_FIRST_BATCH, Math.max(FIRST_BATCH, NEED));
/** As kv/explore/plan/words/word_ranges.ts prices a list. */
export const RANGE_LIST_COST = 12;

/** The word index of n generated tasks: postings of the words the queried prefixes start. */
export interface WordIndex {
  n: number;
  createdMs: Float64Array;
  zones: string[];
  paid: Uint8Array;
  /** Task numbers (oldest first: creation order) of each word a queried prefix starts. */
  postings: Map<string, number[]>;
  /** Mean indexed words a task (its word entries and word counter sums). */
  wordsPerTask: number;
  /** Distinct counter keys: (word, zone) today, and per epoch size. */
  keys: { zone: number; epochZone: number[]; epochTotal: number[] };
  tasks: Map<number, TaskRecord>;
}

/** Reads a first page makes: dictionary entries, word entries, documents, lists (all kinds). */
export interface Reads {
  dict: number;
  entries: number;
  docs: number;
  lists: number;
  /** Lists added after the first reads (each a round trip more). */
  refills: number;
}

/** Distinct word counter keys of `tasks`: (word, zone), and per epoch size with and without zone. */
export function counterKeys(tasks: Iterable<TaskRecord>, epochDays: number[]) {
  const zone = new Set<string>();
  const epochZone = epochDays.map(() => new Set<string>());
  const epochTotal = epochDays.map(() => new Set<string>());
  let n = 0;
  for (const t of tasks) {
    n++;
    const z = wordZone(t.location);
    const ms = Date.parse(t.createdAt);
    for (const word of indexedWords(searchTerms(t))) {
      zone.add(key(word, z));
      epochDays.forEach((days, k) => {
        const epoch = Math.floor(ms / (days * DAY_MS));
        epochZone[k].add(key(word, epoch, z));
        epochTotal[k].add(key(word, epoch));
      });
    }
  }
  return {
    n,
    zone: zone.size,
    epochZone: epochZone.map((s) => s.size),
    epochTotal: epochTotal.map((s) => s.size),
  };
}

/** Builds the model over tasks 0..n-1; `prefixes` are the query words kept in postings. */
export function buildIndex(
  n: number,
  prefixes: string[],
  epochDays: number[],
  log: (line: string) => void,
): WordIndex {
  const createdMs = new Float64Array(n);
  const zones: string[] = new Array(n);
  const paid = new Uint8Array(n);
  const postings = new Map<string, number[]>();
  const wordIds = new Map<string, number>();
  const zoneIds = new Map<string, number>();
  const zoneKeys = new Set<number>();
  const epochZone = epochDays.map(() => new Set<number>());
  const epochTotal = epochDays.map(() => new Set<number>());
  let indexed = 0;
  for (let i = 0; i < n; i++) {
    const task = generateTask(i, n);
    const ms = Date.parse(task.createdAt);
    createdMs[i] = ms;
    const zone = wordZone(task.location);
    zones[i] = zone;
    paid[i] = task.budget > 0 ? 1 : 0;
    const words = indexedWords(searchTerms(task));
    if (words.length > MAX_INDEXED_WORDS) continue;
    indexed += words.length;
    let z = zoneIds.get(zone);
    if (z === undefined) zoneIds.set(zone, z = zoneIds.size);
    for (const word of words) {
      let w = wordIds.get(word);
      if (w === undefined) wordIds.set(word, w = wordIds.size);
      zoneKeys.add(w * 4096 + z);
      epochDays.forEach((days, k) => {
        const epoch = Math.floor(ms / (days * DAY_MS)) % 1024;
        epochZone[k].add((w * 4096 + z) * 1024 + epoch);
        epochTotal[k].add(w * 1024 + epoch);
      });
      if (prefixes.some((p) => word.startsWith(p))) {
        const list = postings.get(word);
        if (list) list.push(i);
        else postings.set(word, [i]);
      }
    }
    if ((i + 1) % 200_000 === 0) log(`  modelled ${i + 1} of ${n}`);
  }
  return {
    n,
    createdMs,
    zones,
    paid,
    postings,
    wordsPerTask: indexed / n,
    keys: {
      zone: zoneKeys.size,
      epochZone: epochZone.map((s) => s.size),
      epochTotal: epochTotal.map((s) => s.size),
    },
    tasks: new Map(),
  };
}

export function task(ix: WordIndex, i: number): TaskRecord {
  let t = ix.tasks.get(i);
  if (!t) ix.tasks.set(i, t = generateTask(i, ix.n));
  return t;
}

/** The dictionary words a query word starts, in key order. */
export function expansion(ix: WordIndex, prefix: string): string[] {
  return [...ix.postings.keys()].filter((w) => w.startsWith(prefix)).sort();
}

export interface Candidate {
  i: number;
  word: string;
}

/** The word's candidates (zones in `reach` only), newest first, each task once. */
export function candidates(ix: WordIndex, words: string[], reach: Set<string> | null): Candidate[] {
  const seen = new Set<number>();
  const out: Candidate[] = [];
  for (const word of words) {
    for (const i of ix.postings.get(word) ?? []) {
      if (reach !== null && !reach.has(ix.zones[i])) continue;
      if (seen.has(i)) continue;
      seen.add(i);
      out.push({ i, word });
    }
  }
  return out.sort((a, b) => b.i - a.i);
}

/**
 * Walks the candidates newest first until `NEED` match: those read (word entries), those whose
 * facet passes (documents read, to check what the entry cannot), the last one read.
 */
export function walk(ix: WordIndex, cands: Candidate[], filters: ExploreFilters) {
  let read = 0;
  let docs = 0;
  let matches = 0;
  for (const c of cands) {
    read++;
    const facetPasses = filters.payment === undefined ||
      (filters.payment === "Paid") === (ix.paid[c.i] === 1);
    if (!facetPasses) continue;
    docs++;
    const t = task(ix, c.i);
    if (matchExplore(t, searchTerms(t), filters)) matches++;
    if (matches === NEED) break;
  }
  return { read, docs, cutoff: read === 0 ? ix.n : cands[read - 1].i };
}

export const key = (...parts: (string | number)[]) => parts.join("\u0000");

export function countBy(cands: Candidate[], id: (c: Candidate) => string) {
  const counts = new Map<string, number>();
  for (const c of cands) counts.set(id(c), (counts.get(id(c)) ?? 0) + 1);
  return counts;
}

/** Layout 8's first page of a word search (`reach` null without a circle). */
/**
 * A documents scan newest first (both payment classes), the planner's choice for a common word:
 * documents read down to the page's last match (ideal: the service sizes its first lists deeper).
 */
export function docsScan(ix: WordIndex, filters: ExploreFilters, dict: number): Reads {
  let read = 0;
  let matches = 0;
  for (let i = ix.n - 1; i >= 0 && matches < NEED; i--) {
    read++;
    const t = task(ix, i);
    if (matchExplore(t, searchTerms(t), filters)) matches++;
  }
  return { dict, entries: 0, docs: read, lists: 1, refills: 0 };
}

/** Total entries of a word's expansion (its driver's estimate). */
export function wordSize(ix: WordIndex, prefix: string): number {
  return expansion(ix, prefix).reduce((n, w) => n + (ix.postings.get(w)?.length ?? 0), 0);
}
