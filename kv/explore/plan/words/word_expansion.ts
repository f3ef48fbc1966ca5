/**
 * A query word's expansion within a search circle: the dictionary words it starts, their (word,
 * zone) and (word, epoch) counts, and the (word, epoch, zone) cells the page's reads are made of.
 */
import { LIST_COST, type Work } from "../../scan/work.ts";
import { explore } from "../../../keyspace.ts";
import type { WordCounts, ZoneCount } from "../../shared/plan_memory.ts";

/** A query word expanding to more dictionary words than this drives no scan. */
export const MAX_EXPANSION = 32;
/** Most dictionary entries (a word in a zone each) a query word's expansion may list. */
const MAX_DICTIONARY = 1000;
/** Most (word, zone) counters read by key in place of listing a query word's dictionary. */
const MAX_REACHED_KEYS = 20;
const GET_MANY = 10;
const WORD_END = "\u{10FFFF}";

/**
 * The dictionary counts of the words a query word starts, in key order; null past the caps.
 * Where the instance remembers the expansion (`known`) and a circle reaches few zones, the
 * reached zones' counters are read by key beside the (word, epoch) totals, in place of the whole
 * (word, zone) dictionary (a common word's spans most zones of a large store): the totals name
 * every word, so a word the memory lacks is found, and only its zones are then listed (a round
 * trip more). The zones the circle does not reach keep their remembered counts: the range split
 * prices a list over them with those, and a range reads what its keys hold, whatever the counts.
 */
export async function expandWord(
  kv: Deno.Kv,
  prefix: string,
  options: { work: Work; known?: WordCounts[] | null; reach?: Set<string> | null },
): Promise<WordCounts[] | null> {
  const { work, known, reach } = options;
  const byKey = known && reach && known.every((w) => w.zones.length > 0) &&
      known.length * reach.size <= MAX_REACHED_KEYS
    ? { known, reach }
    : null;
  const [fresh, epochs] = await Promise.all([
    byKey ? reachedCounts(kv, byKey, work) : listCounts(kv, explore.wordsPrefix(), prefix, work),
    listCounts(kv, explore.wordEpochsPrefix(), prefix, work),
  ]);
  if (fresh === null || epochs === null) return null;
  let zones: Map<string, [string, number][]> | null = fresh;
  if (byKey) {
    const remembered = new Map(byKey.known.map((w) => [w.word, w.zones]));
    if ([...epochs.keys()].some((word) => !remembered.has(word))) {
      zones = await listCounts(kv, explore.wordsPrefix(), prefix, work);
    } else {
      zones = new Map();
      for (const word of epochs.keys()) {
        const kept = remembered.get(word)!.filter(([zone]) => !byKey.reach.has(zone));
        const merged = [...kept, ...(fresh.get(word) ?? [])];
        zones.set(word, merged.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
      }
    }
  }
  if (zones === null || epochs.size > MAX_EXPANSION || zones.size > MAX_EXPANSION) return null;
  const counts: WordCounts[] = [];
  for (const [word, byEpoch] of epochs) {
    const byZone = zones.get(word);
    if (byZone?.length) counts.push({ word, zones: byZone, epochs: byEpoch });
  }
  return counts;
}

/** The non-zero (word, zone) counters of the remembered words in the reached zones, by word. */
async function reachedCounts(
  kv: Deno.Kv,
  { known, reach }: { known: WordCounts[]; reach: Set<string> },
  work: Work,
): Promise<Map<string, [string, number][]>> {
  const keys = known.flatMap(({ word }) => [...reach].map((zone) => explore.word(word, zone)));
  const batches: Deno.KvKey[][] = [];
  for (let i = 0; i < keys.length; i += GET_MANY) batches.push(keys.slice(i, i + GET_MANY));
  const read = (await Promise.all(batches.map((b) => kv.getMany<Deno.KvU64[]>(b)))).flat();
  work.lists += batches.length;
  work.units += batches.length * LIST_COST + keys.length;
  const counts = new Map<string, [string, number][]>();
  for (const entry of read) {
    const size = entry.value ? Number(entry.value.value) : 0;
    if (size === 0) continue;
    const [, word, zone] = entry.key as [string, string, string];
    const found = counts.get(word);
    if (found) found.push([zone, size]);
    else counts.set(word, [[zone, size]]);
  }
  return counts;
}

/** Non-zero counts by word, then by the key's last part, in key order; null past the cap. */
export async function listCounts(
  kv: Deno.Kv,
  root: Deno.KvKey,
  prefix: string,
  work: Work,
): Promise<Map<string, [string, number][]> | null> {
  const counts = new Map<string, [string, number][]>();
  const iter = kv.list<Deno.KvU64>(
    { start: [...root, prefix], end: [...root, prefix + WORD_END] },
    { limit: MAX_DICTIONARY, batchSize: MAX_DICTIONARY },
  );
  let listed = 0;
  for await (const entry of iter) {
    listed++;
    const size = Number(entry.value.value);
    if (size === 0) continue;
    const { word, part: at } = explore.wordParts(entry.key);
    const part: [string, number] = [at, size];
    const found = counts.get(word);
    if (found) found.push(part);
    else counts.set(word, [part]);
  }
  work.lists++;
  work.units += LIST_COST + listed;
  return listed === MAX_DICTIONARY ? null : counts;
}

/**
 * The (word, epoch, zone) cells of an expansion a page's reads can touch, in key order: the
 * dictionary counts by (word, zone) and by (word, epoch) apart, so a cell's size is its zone's
 * count at its epoch's share. Within a circle, a zone it does not reach matters only as the cost
 * of a range read over it (no range starts or ends at one): a run of them between two reached
 * zones is one cell (its first zone, the run's entries summed), and those before a word's first
 * reached zone or after its last are left out. A common word spans most zones of a large store,
 * in every epoch, where a circle reaches a few.
 */
export function cellsOf(counts: WordCounts[], reach: Set<string> | null): ZoneCount[] {
  const cells: ZoneCount[] = [];
  for (const { word, zones, epochs } of counts) {
    const kept = reach === null ? zones : reachedRuns(zones, reach);
    if (kept.length === 0) continue;
    const total = epochs.reduce((n, [, size]) => n + size, 0);
    for (const [epoch, inEpoch] of epochs) {
      for (const [zone, inZone] of kept) {
        cells.push({ word, epoch, zone, size: inZone * inEpoch / total });
      }
    }
  }
  return cells;
}

/** A word's zones from its first reached one to its last, each run of unreached ones summed. */
function reachedRuns(zones: [string, number][], reach: Set<string>): [string, number][] {
  let first = 0;
  while (first < zones.length && !reach.has(zones[first][0])) first++;
  let last = zones.length - 1;
  while (last > first && !reach.has(zones[last][0])) last--;
  const kept: [string, number][] = [];
  let run: [string, number] | null = null;
  for (let i = first; i <= last && first < zones.length; i++) {
    const [zone, size] = zones[i];
    if (reach.has(zone)) {
      if (run) kept.push(run);
      run = null;
      kept.push(zones[i]);
    } else if (run) run[1] += size;
    else run = [zone, size];
  }
  return kept;
}
