/**
 * The planner's word part within a search circle: a query word drives by the dictionary words it
 * starts, each read in the zones that can reach the circle, merged newest first (without a circle,
 * `word_epochs.ts`).
 */
import type { GeoFilter } from "../../../../domain/explore.ts";
import { coverCircle } from "../../../../domain/geo/geohash_cover.ts";
import {
  COUNT_PRECISION,
  FAR_ZONE_MARK,
  FAR_ZONE_PRECISION,
  GEO_LAYERS,
  NEAR_REACH_KM,
} from "../../index/entries.ts";
import { deepBatch, type Driver } from "../driver.ts";
import { FIRST_BATCH, MAX_BATCH, PrefixStream } from "../../scan/stream.ts";
import { LIST_COST, type Work } from "../../scan/work.ts";
import { type EntryValue } from "../../scan/candidate.ts";
import { indexCovers } from "../../index/indexed_words.ts";
import { explore } from "../../../keyspace.ts";
import { epochCeiling, epochOf } from "../../index/epochs.ts";
import type { PlanMemory, WordCounts, ZoneCount } from "../../shared/plan_memory.ts";
import { cellsOf, expandWord } from "./word_expansion.ts";
import { rangeSize, zoneLists, type ZoneStreams, zoneStreams } from "./word_ranges.ts";

/**
 * Entries of a query word's range read alongside the dictionary on a first page: a word with
 * fewer is then read whole, and its page waits for no list of its own.
 */
export const WHOLE_WORD = 128;
const WORD_END = "\u{10FFFF}";

/**
 * The word zones a search circle can draw matches from: near zones (counter cells) within the
 * near layers' reach of it, far zones within the largest radius class's.
 */
export function zonesReaching(geo: GeoFilter): Set<string> {
  const near = coverCircle(geo, {
    maxCells: 1024,
    precisions: [COUNT_PRECISION],
    extraKm: NEAR_REACH_KM,
  }).cells;
  const farKm = Math.max(...GEO_LAYERS.map((layer) => layer.maxRadiusKm));
  const far = coverCircle(geo, { maxCells: 1024, precisions: [FAR_ZONE_PRECISION], extraKm: farKm })
    .cells.map((cell) => FAR_ZONE_MARK + cell);
  return new Set([...near, ...far]);
}

/** What the drivers of every query word share. */
export interface WordPlan {
  /** Tasks with more words than are indexed, which every search reads too. */
  overflow: Promise<number>;
  after: string | null;
  work: Work;
  /** Entries of a single stream's first read (a whole page). */
  batch: number;
  /** The search circle, whose zones alone are read; null without one. */
  geo: GeoFilter | null;
  /**
   * True when the query has a filter that a word entry (which carries the payment class only)
   * cannot check, so that every candidate costs a document read (its card).
   */
  needsCards: boolean;
  /**
   * True when the page's match beyond its last is proved without a read where the counters say
   * one follows (`ScanQuery.sure`): its first reads need the page's matches alone.
   */
  sure: boolean;
  /** The instance's memory: expansions last read, written by every fresh read. */
  memory: PlanMemory;
  /**
   * Set for a plan made from memory alone (it reads nothing): `missed` is set when a query
   * word's expansion is not remembered, and the plan is then no guess at all.
   */
  dry: { missed: boolean } | null;
}

/**
 * A query word drives by the dictionary words it starts in the zones that matter, plus the
 * overflow tasks; not when it could start a word the index leaves out (see `indexCovers`).
 */
export async function wordDrivers(
  kv: Deno.Kv,
  prefix: string,
  plan: WordPlan,
): Promise<Driver[]> {
  const { overflow, after, work, batch, geo, memory, dry } = plan;
  if (!indexCovers(prefix)) return [];
  const known = memory.expansions.get(prefix);
  // An expansion read for a search without a circle holds no zones (word_epochs.ts).
  if (dry && (known === undefined || known?.some((w) => w.zones.length === 0))) {
    dry.missed = true;
  }
  // Most query words hold few tasks: read whole alongside the dictionary, their page waits for
  // no list of its own. Not a word remembered as larger (or too broad to drive a scan): its
  // entries are listed by zone, early when the instance remembers them (plan/early_lists.ts).
  const readsWhole = after === null && (known === undefined || sizeOf(known) < WHOLE_WORD);
  const reach = geo ? zonesReaching(geo) : null;
  const [counts, extra, whole] = dry ? [known ?? null, await overflow, null] : await Promise.all([
    expandWord(kv, prefix, { work, known, reach }),
    overflow,
    readsWhole ? readNewest(kv, prefix, work) : null,
  ]);
  if (!dry) memory.expansions.set(prefix, counts);
  if (!counts) return [];
  const expansion = cellsOf(counts, reach);
  // Entries older than the cursor are in its epoch or older ones.
  const last = after === null ? null : epochOf(after);
  const reached = (z: ZoneCount) =>
    (reach === null || reach.has(z.zone)) && (last === null || z.epoch <= last);
  const zones = expansion.filter(reached);
  const groups = whole?.complete ? groupByZone(whole.entries.toReversed(), reach) : null;
  // A plan from memory takes a word the fresh plan will read whole as read whole: no lists.
  const dryWhole = dry !== null && readsWhole;
  const estimate =
    (groups
      ? [...groups.values()].reduce((n, g) => n + g.length, 0)
      : zones.reduce((n, z) => n + z.size, 0)) + extra;
  // A zone read alone holds the whole page; merged zones share it, each read to its expected
  // share of the page with a margin of three standard deviations: a zone cut short costs a
  // round trip, an entry too many only its read, and a rare word spans a hundred zones.
  const zonePlan = (depth: number): ZoneStreams => {
    const reads = epochReads(zones, Math.max(batch, depth * zones.reduce((n, z) => n + z.size, 0)));
    return {
      expansion,
      reached,
      ceiling: (z) => (reads.lazy(z) ? epochCeiling(z.epoch) : undefined),
      batch: (z) => {
        // The merge takes an epoch's candidates before any older one's: a newer epoch than the
        // one where the page is expected to fill is read whole, that one to its share.
        const expected = reads.share(z, depth) * z.size;
        const margin = Math.ceil(expected + 3 * Math.sqrt(expected)) + 2;
        return Math.min(
          rangeSize(z.size),
          MAX_BATCH,
          Math.max(margin, zones.length === 1 ? batch : 0),
        );
      },
      before: after,
      work,
    };
  };
  const lists = (groups || dryWhole ? 0 : zoneLists(zonePlan(0))) + (extra > 0 ? 1 : 0);
  return [{
    name: "search",
    estimate,
    wordsFromDocs: plan.needsCards,
    lists,
    zoned: reach !== null,
    bare: true,
    streams: (depth = 0) => {
      const streams: PrefixStream[] = [];
      if (groups) {
        for (const [id, entries] of groups) {
          const [word, epoch, zone] = JSON.parse(id) as [string, string, string];
          const prefix = explore.byWordCellPrefix(word, epoch, zone);
          const stream = new PrefixStream(kv, { prefix, before: after, work });
          // Newest first, and known to be all: the stream never lists.
          stream.preload(entries.reverse(), entries.length + 1);
          streams.push(stream);
        }
      } else if (!dryWhole) {
        streams.push(...zoneStreams(kv, zonePlan(depth)));
      }
      if (extra > 0) {
        const size = deepBatch(FIRST_BATCH, depth * extra);
        streams.push(
          new PrefixStream(kv, {
            prefix: explore.overflowPrefix(),
            before: after,
            work,
            batch: size,
          }),
        );
      }
      return streams;
    },
  }];
}

/**
 * How a page reads the epochs of its reached cells, newest first, to read `need` entries: the
 * epochs newer than the one where it is expected to get them whole, that one to the share still
 * needed, the older ones lazily (only if the page gets down to them).
 */
function epochReads(zones: ZoneCount[], need: number) {
  const byEpoch = new Map<string, number>();
  for (const z of zones) byEpoch.set(z.epoch, (byEpoch.get(z.epoch) ?? 0) + z.size);
  let read = 0;
  let last: string | null = null;
  let lastShare = 1;
  for (const epoch of [...byEpoch.keys()].sort().reverse()) {
    const size = byEpoch.get(epoch)!;
    last = epoch;
    lastShare = size > 0 ? Math.min(1, (need - read) / size) : 1;
    read += size;
    if (read >= need) break;
  }
  return {
    lazy: (z: ZoneCount) => last !== null && z.epoch < last,
    share: (z: ZoneCount, depth: number) =>
      last === null || z.epoch < last ? depth : z.epoch > last ? 1 : lastShare,
  };
}

/** Entries of a remembered expansion, every epoch; a too broad one counts as large. */
export function sizeOf(counts: WordCounts[] | null): number {
  if (counts === null) return Infinity;
  return counts.reduce((n, w) => n + w.epochs.reduce((m, [, size]) => m + size, 0), 0);
}

/** The word entries of a complete read, by (word, epoch, zone), oldest first; only reached zones. */
function groupByZone(
  entries: Deno.KvEntry<EntryValue>[],
  reach: Set<string> | null,
): Map<string, Deno.KvEntry<EntryValue>[]> {
  const groups = new Map<string, Deno.KvEntry<EntryValue>[]>();
  for (const entry of entries) {
    const [, word, epoch, zone] = entry.key as [string, string, string, string, string];
    if (reach !== null && !reach.has(zone)) continue;
    const id = JSON.stringify([word, epoch, zone]);
    const group = groups.get(id);
    if (group) group.push(entry);
    else groups.set(id, [entry]);
  }
  return groups;
}

/**
 * The newest `WHOLE_WORD` entries of the words a query word starts, in reverse key order (the
 * last word's newest epoch first): the whole word when `complete`, else its newest epochs.
 */
export async function readNewest(
  kv: Deno.Kv,
  prefix: string,
  work: Work,
): Promise<{ entries: Deno.KvEntry<EntryValue>[]; complete: boolean }> {
  const root = explore.byWordRoot();
  const entries: Deno.KvEntry<EntryValue>[] = [];
  const iter = kv.list<EntryValue>(
    { start: [...root, prefix], end: [...root, prefix + WORD_END] },
    { limit: WHOLE_WORD, batchSize: WHOLE_WORD, reverse: true },
  );
  for await (const entry of iter) entries.push(entry);
  work.lists++;
  work.entries += entries.length;
  work.units += LIST_COST + entries.length;
  return { entries, complete: entries.length < WHOLE_WORD };
}
