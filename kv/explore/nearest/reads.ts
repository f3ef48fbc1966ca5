/**
 * The reads of a nearest-first walk (`nearest_page.ts`) besides its cell lists' own: runs of
 * sibling cells listed as one key range, the documents a search checks, the cell counters.
 */
import { COUNT_PRECISION, POINT_PRECISION } from "../index/entries.ts";
import { type PackedCard, type PackedDoc, packedWords } from "../index/card.ts";
import { packedHasWords } from "../../tasks/packed_words.ts";
import { packedFacet } from "../index/packed_facet.ts";
import { explore } from "../../keyspace.ts";
import { getAll } from "../../store/get_all.ts";
import { GETMANY_MAX } from "../../store/limits.ts";
import type { CellNode } from "./queue.ts";

/** A task listed from a cell, its card as stored. */
export type Found = { key: string; packed: PackedCard | PackedDoc };

/** What a page read, for benchmarks: list calls, index entries and documents. */
export interface NearestWork {
  lists: number;
  entries: number;
  docs: number;
}

/** What `siblingRuns` asks of the page's cell decisions (`CellChoices`). */
export interface RunChoices {
  /** The first batch's small counter cells, each listed alone. */
  early: Set<CellNode>;
  /**
   * True where b, after a in key order (one counter cell and length), is worth listing in
   * a's range: the tasks expected between them cost less than the list it saves.
   */
  joins(a: CellNode, b: CellNode): boolean;
}

/**
 * The batch's point cells in runs of one key range each: cells of one counter cell and one
 * precision (finer than the counters'), in key order, where the tasks expected between one and
 * the next cost less than the list a run saves (siblings next to one another have none between
 * them; a sparse area's cells around the point few); any other cell alone.
 */
export function siblingRuns(batch: CellNode[], choices: RunChoices): CellNode[][] {
  const runs: CellNode[][] = [];
  const sorted = [...batch].sort((a, b) => a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0);
  let last: CellNode | null = null;
  for (const cell of sorted) {
    const fine = cell.hash.length > COUNT_PRECISION && cell.hash.length < POINT_PRECISION &&
      !choices.early.has(cell) && !cell.cellLayer;
    const next = last !== null && fine && last.hash.length === cell.hash.length &&
      last.hash.slice(0, COUNT_PRECISION) === cell.hash.slice(0, COUNT_PRECISION) &&
      choices.joins(last, cell);
    if (next) runs[runs.length - 1].push(cell);
    else runs.push([cell]);
    last = fine ? cell : null;
  }
  return runs;
}

/** The candidates whose documents (read fresh) hold every search word, with those documents. */
export async function withWords(
  kv: Deno.Kv,
  candidates: Found[],
  search: string[],
  work: NearestWork,
): Promise<Found[]> {
  const kept: Found[] = [];
  for (let i = 0; i < candidates.length; i += GETMANY_MAX) {
    const group = candidates.slice(i, i + GETMANY_MAX);
    const docs = await kv.getMany<PackedDoc[]>(
      group.map((c) => explore.all(packedFacet(c.packed).payment, c.key)),
    );
    work.docs += group.length;
    docs.forEach((entry, j) => {
      const doc = entry.value;
      if (doc && packedHasWords(packedWords(doc), search)) {
        kept.push({ key: group[j].key, packed: doc });
      }
    });
  }
  return kept;
}

export async function readCounts(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<number[]> {
  return (await getAll<Deno.KvU64>(kv, keys)).map((count) => count ? Number(count.value) : 0);
}
