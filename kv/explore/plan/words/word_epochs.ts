/**
 * A query word without a search circle: planned from the (word, epoch) totals alone, each epoch of
 * a word one stream read whole, the newest first (docs/explore.md, "Word epochs without a circle").
 */
import { deepBatch, type Driver } from "../driver.ts";
import { FIRST_BATCH, PrefixStream } from "../../scan/stream.ts";
import { type EntryValue } from "../../scan/candidate.ts";
import { explore } from "../../../keyspace.ts";
import { indexCovers } from "../../index/indexed_words.ts";
import { epochCeiling, epochOf, epochShareBefore } from "../../index/epochs.ts";
import type { WordCounts } from "../../shared/plan_memory.ts";
import { rangeSize } from "./word_ranges.ts";
import { listCounts, MAX_EXPANSION } from "./word_expansion.ts";
import { readNewest, sizeOf, WHOLE_WORD, type WordPlan } from "./circle_words.ts";

/** One word's entries in one epoch: the totals count them exactly. */
interface EpochCell {
  word: string;
  epoch: string;
  size: number;
}

/**
 * The drivers of a query word whose search has no circle. The (word, zone) dictionary is not
 * listed: it sizes a circle's zones only, and a rare word spans a hundred zones. An epoch's entries
 * are in zone order, so its stream lists it whole and sorts it; its count is exact, so the page
 * reads the newest epochs down to the one where it is expected to fill, the older ones only if it
 * gets down to them (`PrefixStream.ceiling`). A stream lists its whole prefix, so a counter behind
 * the index costs entries, never a match.
 */
export async function epochDrivers(
  kv: Deno.Kv,
  prefix: string,
  plan: WordPlan,
): Promise<Driver[]> {
  const { overflow, after, work, batch, memory, dry } = plan;
  if (!indexCovers(prefix)) return [];
  const known = memory.expansions.get(prefix);
  if (dry && known === undefined) dry.missed = true;
  // Most query words hold few tasks: their newest entries, read alongside the dictionary, are
  // the page's whole epochs. Not a word remembered as larger: its epochs are listed early.
  const readsWhole = after === null && (known === undefined || sizeOf(known) < WHOLE_WORD);
  const [epochs, extra, newest] = dry
    ? [known === undefined || known === null ? null : known, await overflow, null]
    : await Promise.all([
      listCounts(kv, explore.wordEpochsPrefix(), prefix, work).then((m) => fromEpochs(m, known)),
      overflow,
      readsWhole ? readNewest(kv, prefix, work) : null,
    ]);
  if (!dry) memory.expansions.set(prefix, epochs);
  if (!epochs) return [];
  const last = after === null ? null : epochOf(after);
  const cells: EpochCell[] = [];
  for (const { word, epochs: byEpoch } of epochs) {
    for (const [epoch, size] of byEpoch) {
      if (last !== null && epoch > last) continue;
      // The cursor's epoch holds its entries below the cursor only: taken as spread evenly.
      const part = epoch === last ? epochShareBefore(epoch, after!) : 1;
      cells.push({ word, epoch, size: size * part });
    }
  }
  const read = dry === null && newest !== null ? completeCells(newest) : new Map();
  // A plan from memory takes a word the fresh plan will read whole as read whole: no lists.
  const dryWhole = dry !== null && readsWhole;
  const total = cells.reduce((n, c) => n + c.size, 0);
  // A sure page's match beyond its last is proved by the older epochs' counts, unread.
  const page = plan.sure ? batch - 1 : batch;
  const first = (depth: number) => firstEpochs(cells, Math.max(page, depth * total * page / batch));
  const listed = (depth: number) => {
    const epochs = first(depth);
    return cells.filter((c) => epochs.has(c.epoch) && !read.has(cellId(c)));
  };
  return [{
    name: "search",
    estimate: total + extra,
    wordsFromDocs: plan.needsCards,
    lists: (dryWhole ? 0 : listed(0).length) + (extra > 0 ? 1 : 0),
    wholeRead: (depth) => dryWhole ? 0 : listed(depth).reduce((n, c) => n + c.size, 0),
    bare: true,
    streams: (depth = 0) => {
      const streams: PrefixStream[] = [];
      const firstRead = first(depth);
      for (const cell of dryWhole ? [] : cells) {
        const entries = read.get(cellId(cell));
        const stream = new PrefixStream(kv, {
          prefix: explore.byWordEpochPrefix(cell.word, cell.epoch),
          before: after,
          work,
          batch: rangeSize(cell.size),
          unordered: true,
          holds: cell.size,
          ceiling: firstRead.has(cell.epoch) ? undefined : epochCeiling(cell.epoch),
        });
        if (entries) stream.preloadWhole(entries);
        streams.push(stream);
      }
      if (extra > 0) {
        streams.push(
          new PrefixStream(kv, {
            prefix: explore.overflowPrefix(),
            before: after,
            work,
            batch: deepBatch(FIRST_BATCH, depth * extra),
          }),
        );
      }
      return streams;
    },
  }];
}

/**
 * A query word's counts from its (word, epoch) totals: the (word, zone) counts the instance
 * remembers are kept (a circle's plan from memory needs them); null past the caps.
 */
function fromEpochs(
  byWord: Map<string, [string, number][]> | null,
  known: WordCounts[] | null | undefined,
): WordCounts[] | null {
  if (byWord === null || byWord.size > MAX_EXPANSION) return null;
  return [...byWord].map(([word, epochs]) => ({
    word,
    epochs,
    zones: known?.find((w) => w.word === word)?.zones ?? [],
  }));
}

/** The epochs a page reads first: newest first down to the one where `need` entries are read. */
function firstEpochs(cells: EpochCell[], need: number): Set<string> {
  const byEpoch = new Map<string, number>();
  for (const c of cells) byEpoch.set(c.epoch, (byEpoch.get(c.epoch) ?? 0) + c.size);
  const first = new Set<string>();
  let read = 0;
  for (const epoch of [...byEpoch.keys()].sort().reverse()) {
    first.add(epoch);
    read += byEpoch.get(epoch)!;
    if (read >= need) break;
  }
  return first;
}

function cellId(cell: { word: string; epoch: string }): string {
  return `${cell.word}\u0000${cell.epoch}`;
}

/**
 * The (word, epoch) cells a read of a query word's newest entries (in reverse key order) holds
 * whole: every one it passed, and the last too unless the read was cut short.
 */
function completeCells(
  newest: { entries: Deno.KvEntry<EntryValue>[]; complete: boolean },
): Map<string, Deno.KvEntry<EntryValue>[]> {
  const cells = new Map<string, Deno.KvEntry<EntryValue>[]>();
  let lastId: string | null = null;
  for (const entry of newest.entries) {
    const { word, part: epoch } = explore.wordParts(entry.key);
    const id = cellId({ word, epoch });
    const cell = cells.get(id);
    if (cell) cell.push(entry);
    else cells.set(id, [entry]);
    lastId = id;
  }
  if (!newest.complete && lastId !== null) cells.delete(lastId);
  return cells;
}
