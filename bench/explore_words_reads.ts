/**
 * What a first page's word search reads in the model (bench/explore_words_model.ts): under layout
 * 8 (`xp_w, word, zone, orderKey`), and under a word index split by epoch.
 */
import type { ExploreFilters } from "../domain/explore.ts";
import { WHOLE_WORD, zonesReaching } from "../kv/explore/plan/words/circle_words.ts";
import { MAX_BATCH } from "../kv/explore/scan/stream.ts";
import {
  type Candidate,
  candidates,
  countBy,
  DAY_MS,
  expansion,
  key,
  NEED,
  PAGE_BATCH,
  RANGE_LIST_COST,
  type Reads,
  walk,
  type WordIndex,
} from "./explore_words_model.ts";

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
  const cell = (c: Candidate) => key(c.word, ix.zones[c.i]);
  return circleOrSmall(ix, { all, listed: all, reach, cell, cutoff, dict, docs }) ??
    { dict, docs, ...zoneRanges(ix, all, zoneCounts, cutoff) };
}

/**
 * The reads both layouts share: within a circle, the `listed` candidates' cells (`cellReads`) and
 * a list for the dictionary; without one, a word under `WHOLE_WORD` entries read whole beside the
 * dictionary. Null for a larger word without a circle, which each layout reads its own way.
 */
function circleOrSmall(
  ix: WordIndex,
  read: {
    all: Candidate[];
    listed: Candidate[];
    reach: Set<string> | null;
    cell: (c: Candidate) => string;
    cutoff: number;
    dict: number;
    docs: number;
  },
): Reads | null {
  const { all, reach, dict, docs } = read;
  if (reach) {
    const { entries, lists } = cellReads(read.listed, {
      cell: read.cell,
      reached: (c) => reach.has(ix.zones[c.i]),
      cutoff: read.cutoff,
    });
    return { dict, entries, docs, lists: 1 + lists, refills: 0 };
  }
  if (all.length < WHOLE_WORD) return { dict, entries: all.length, docs, lists: 2, refills: 0 };
  return null;
}

/**
 * A circle's reads of a word's cells ((word, zone), or (word, epoch, zone)) in key order, split as
 * plan/words/word_ranges.ts splits zones: a reached cell alone is listed newest first down to the
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
 * Layout 8's reads of a word's zones without a circle (plan/words/word_ranges.ts): the cheapest
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
  const cell = (c: Candidate) => key(c.word, epochOf(c.i), ix.zones[c.i]);
  const read = circleOrSmall(ix, { all, listed: newer, reach, cell, cutoff, dict, docs });
  if (read) return read;
  const ranges = new Set(newer.map((c) => c.word)).size;
  return { dict, entries: newer.length, docs, lists: 1 + ranges, refills: 0 };
}
