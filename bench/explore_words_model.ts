/**
 * An in-memory model of explore's word index (bench/explore_data.ts tasks, no KV store): what a
 * first page's word search reads under layout 8 (`xp_w, word, zone, orderKey`) and under a word
 * index split by epoch (`xp_w, word, epoch, zone, orderKey`), with the planner's rules.
 */
import type { TaskRecord } from "../domain/tasks/task.ts";
import { searchTerms } from "../domain/tasks/task.ts";
import { type ExploreFilters, matchExplore } from "../domain/explore.ts";
import { indexedWords } from "../kv/explore/index/explore_words.ts";
import { MAX_INDEXED_WORDS, wordZone } from "../kv/explore/index/explore_index.ts";
import { WHOLE_WORD, zonesReaching } from "../kv/explore/plan/words/explore_plan_words.ts";
import { FIRST_BATCH, MAX_BATCH, MAX_FIRST_BATCH } from "../kv/explore/scan/explore_stream.ts";
import { generateTask } from "./explore_data.ts";

const DAY_MS = 24 * 3600 * 1000;
/** A first page of 20 needs 21 matches (the cursor's). */
export const NEED = 21;
/** The first batch of a page of 20 (explore_plan.ts). */
const PAGE_BATCH = Math.min(MAX_FIRST_BATCH, Math.max(FIRST_BATCH, NEED));
/** As kv/explore/plan/words/explore_word_ranges.ts prices a list. */
const RANGE_LIST_COST = 12;

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

function task(ix: WordIndex, i: number): TaskRecord {
  let t = ix.tasks.get(i);
  if (!t) ix.tasks.set(i, t = generateTask(i, ix.n));
  return t;
}

/** The dictionary words a query word starts, in key order. */
function expansion(ix: WordIndex, prefix: string): string[] {
  return [...ix.postings.keys()].filter((w) => w.startsWith(prefix)).sort();
}

interface Candidate {
  i: number;
  word: string;
}

/** The word's candidates (zones in `reach` only), newest first, each task once. */
function candidates(ix: WordIndex, words: string[], reach: Set<string> | null): Candidate[] {
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
function walk(ix: WordIndex, cands: Candidate[], filters: ExploreFilters) {
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

const key = (...parts: (string | number)[]) => parts.join("\u0000");

function countBy(cands: Candidate[], id: (c: Candidate) => string) {
  const counts = new Map<string, number>();
  for (const c of cands) counts.set(id(c), (counts.get(id(c)) ?? 0) + 1);
  return counts;
}

/** Layout 8's first page of a word search (`reach` null without a circle). */
export function todayReads(
  ix: WordIndex,
  filters: ExploreFilters,
  prefix: string,
): Reads {
  const words = expansion(ix, prefix);
  const geo = filters.geo ?? null;
  const reach = geo ? zonesReaching(geo) : null;
  const all = candidates(ix, words, null);
  const zoneCounts = countBy(all, (c) => key(c.word, ix.zones[c.i]));
  const dict = zoneCounts.size;
  const cands = reach ? all.filter((c) => reach.has(ix.zones[c.i])) : all;
  const { docs, cutoff } = walk(ix, cands, filters);
  if (reach) {
    const cell = (c: Candidate) => key(c.word, ix.zones[c.i]);
    const { entries, lists } = cellReads(all, {
      cell,
      reached: (c) => reach.has(ix.zones[c.i]),
      cutoff,
    });
    return { dict, entries, docs, lists: 1 + lists, refills: 0 };
  }
  if (all.length < WHOLE_WORD) {
    return { dict, entries: all.length, docs, lists: 2, refills: 0 };
  }
  return { dict, docs, ...zoneRanges(ix, all, zoneCounts, cutoff) };
}

/**
 * A circle's reads of a word's cells ((word, zone), or (word, epoch, zone)) in key order, split as
 * explore_word_ranges.ts splits zones: a reached cell alone is listed newest first down to the
 * page's last candidate (ideal: no margin), or reached cells next to each other in key order read
 * whole as one range (unreached ones between them too), whichever costs fewer entries plus
 * `RANGE_LIST_COST` a list.
 */
function cellReads(
  listed: Candidate[],
  rule: { cell: (c: Candidate) => string; reached: (c: Candidate) => boolean; cutoff: number },
): { entries: number; lists: number } {
  const cells = new Map<string, { size: number; needed: number; reached: boolean }>();
  for (const c of listed) {
    const id = rule.cell(c);
    let cell = cells.get(id);
    if (!cell) cells.set(id, cell = { size: 0, needed: 0, reached: rule.reached(c) });
    cell.size++;
    if (c.i >= rule.cutoff) cell.needed++;
  }
  const order = [...cells.keys()].sort().map((id) => cells.get(id)!);
  const n = order.length;
  const cost = new Array<number>(n + 1).fill(0);
  const pick: { from: number; entries: number; lists: number }[] = new Array(n + 1);
  pick[0] = { from: 0, entries: 0, lists: 0 };
  for (let i = 1; i <= n; i++) {
    const cell = order[i - 1];
    if (!cell.reached) {
      cost[i] = cost[i - 1];
      pick[i] = { from: i - 1, entries: 0, lists: 0 };
      continue;
    }
    cost[i] = cost[i - 1] + RANGE_LIST_COST + cell.needed;
    pick[i] = { from: i - 1, entries: cell.needed, lists: 1 };
    let size = cell.size;
    for (let j = i - 2; j >= 0; j--) {
      size += order[j].size;
      if (size >= MAX_BATCH) break;
      if (!order[j].reached) continue;
      const whole = cost[j] + RANGE_LIST_COST + size + 1;
      if (whole < cost[i]) {
        cost[i] = whole;
        pick[i] = { from: j, entries: size, lists: 1 };
      }
    }
  }
  let entries = 0;
  let lists = 0;
  for (let i = n; i > 0; i = pick[i].from) {
    entries += pick[i].entries;
    lists += pick[i].lists;
  }
  return { entries, lists };
}

/**
 * Layout 8's reads of a word's zones without a circle (explore_word_ranges.ts): the cheapest
 * split of the zones, in key order, into whole ranges and zones read alone to their expected
 * share of the page plus three standard deviations; a zone alone that runs dry before the page's
 * last candidate lists again (twice its batch).
 */
function zoneRanges(
  ix: WordIndex,
  all: Candidate[],
  zoneCounts: Map<string, number>,
  cutoff: number,
): { entries: number; lists: number; refills: number } {
  const zones = [...zoneCounts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const total = all.length;
  const depth = Math.min(1, NEED / total);
  const batch = (size: number) => {
    const expected = depth * size;
    const margin = Math.ceil(expected + 3 * Math.sqrt(expected)) + 2;
    return Math.min(size + 1, MAX_BATCH, Math.max(margin, zones.length === 1 ? PAGE_BATCH : 0));
  };
  const n = zones.length;
  const cost = new Array<number>(n + 1).fill(Infinity);
  const choice = new Array<[number, boolean]>(n + 1);
  cost[0] = 0;
  for (let i = 1; i <= n; i++) {
    cost[i] = cost[i - 1] + RANGE_LIST_COST + batch(zones[i - 1][1]);
    choice[i] = [i - 1, false];
    let size = 0;
    for (let j = i - 1; j >= 0; j--) {
      size += zones[j][1];
      if (size >= MAX_BATCH) break;
      if (j === i - 1) continue;
      const whole = cost[j] + RANGE_LIST_COST + size + 1;
      if (whole < cost[i]) {
        cost[i] = whole;
        choice[i] = [j, true];
      }
    }
  }
  const needed = countBy(all.filter((c) => c.i >= cutoff), (c) => key(c.word, ix.zones[c.i]));
  let entries = 0;
  let lists = 1; // the dictionary
  let refills = 0;
  for (let i = n; i > 0;) {
    const [from, whole] = choice[i];
    lists++;
    if (whole) {
      for (let z = from; z < i; z++) entries += zones[z][1];
    } else {
      const [id, size] = zones[from];
      const b = batch(size);
      entries += Math.min(b, size);
      if (size > b && (needed.get(id) ?? 0) >= b) {
        refills++;
        entries += Math.min(2 * b, size - b);
      }
    }
    i = from;
  }
  return { entries, lists: lists + refills, refills };
}

/**
 * The epoch layout's word counters: per (word, epoch, zone) instead of (word, zone); or layout 8's
 * (word, zone) kept beside (word, epoch) totals.
 */
export type EpochCounters = "zone" | "total";

/**
 * The epoch layout's first page: the newest epochs of the word, down to the one where the page
 * fills (E), read whole (one range a word) without a circle, each reached (word, epoch, zone) one
 * list newest first with one. The dictionary: (word, epoch, zone) counts listed newest epoch
 * first down to E (and one entry past it); or (word, epoch) totals listed whole, with the
 * (word, zone) counts too for a circle (its zones' sizes by epoch then estimated). E is the
 * page's own (the planner's expected one when the counts are exact and every candidate matches;
 * for geo + search it assumes the circle's kept share measured, as today's memory does).
 */
export function epochReads(
  ix: WordIndex,
  filters: ExploreFilters,
  options: { prefix: string; days: number; counters: EpochCounters; phase: number },
): Reads {
  const { prefix, days, counters, phase } = options;
  // `phase` (0..1) shifts the epochs' boundaries: where "now" falls in the newest epoch.
  const epochOf = (i: number) => Math.floor(ix.createdMs[i] / (days * DAY_MS) + phase);
  const words = expansion(ix, prefix);
  const geo = filters.geo ?? null;
  const reach = geo ? zonesReaching(geo) : null;
  const all = candidates(ix, words, null);
  const cands = reach ? all.filter((c) => reach.has(ix.zones[c.i])) : all;
  const { docs, cutoff } = walk(ix, cands, filters);
  const last = epochOf(cutoff);
  const newer = all.filter((c) => epochOf(c.i) >= last);
  const dictZone = () => {
    const cells = countBy(newer, (c) => key(c.word, epochOf(c.i), ix.zones[c.i])).size;
    // One word: listed in reverse (newest epoch first), stopping past E. Several: whole.
    if (words.length === 1) return cells + (newer.length < all.length ? 1 : 0);
    return countBy(all, (c) => key(c.word, epochOf(c.i), ix.zones[c.i])).size;
  };
  const dictTotal = () => countBy(all, (c) => key(c.word, epochOf(c.i))).size;
  // (word, zone) counts beside (word, epoch) totals: a circle lists both, whole.
  const dictBoth = () => countBy(all, (c) => key(c.word, ix.zones[c.i])).size + dictTotal();
  const dict = counters === "zone" ? dictZone() : reach ? dictBoth() : dictTotal();
  if (reach) {
    const cell = (c: Candidate) => key(c.word, epochOf(c.i), ix.zones[c.i]);
    const { entries, lists } = cellReads(newer, {
      cell,
      reached: (c) => reach.has(ix.zones[c.i]),
      cutoff,
    });
    return { dict, entries, docs, lists: 1 + lists, refills: 0 };
  }
  if (all.length < WHOLE_WORD) {
    return { dict, entries: all.length, docs, lists: 2, refills: 0 };
  }
  const ranges = new Set(newer.map((c) => c.word)).size;
  return { dict, entries: newer.length, docs, lists: 1 + ranges, refills: 0 };
}

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
