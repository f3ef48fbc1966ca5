/**
 * One list over several index prefixes next to each other in key order (a word's zones), read
 * whole and shared by the streams of those prefixes: one KV call instead of one each.
 */
import { ENTRY_COST, LIST_COST, type Work } from "./work.ts";
import { type EntryValue } from "./candidate.ts";

/** A prefix's entries as the range listed them, oldest first. */
export type RangePart = Deno.KvEntry<EntryValue>[];

/** The entries of `members` (prefixes in key order, all between `start` and `end`), read once. */
export class RangeRead {
  #parts: Promise<(RangePart | null)[]> | null = null;

  constructor(
    private readonly kv: Deno.Kv,
    private readonly range: {
      start: Deno.KvKey;
      end: Deno.KvKey;
      /** The prefixes whose streams share the read; other keys in the range are dropped. */
      members: Deno.KvKey[];
      /** Entries the counters give the whole range: more are listed only to tell it was all. */
      size: number;
      work: Work;
    },
  ) {}

  /**
   * Every entry of the `index`th member, oldest first; null when the list stopped short of
   * the member's end (the counters were behind the index), so that its stream lists it alone.
   */
  part(index: number): Promise<RangePart | null> {
    this.#parts ??= this.#read();
    return this.#parts.then((parts) => parts[index]);
  }

  async #read(): Promise<(RangePart | null)[]> {
    const { start, end, members, work } = this.range;
    const limit = this.range.size + 1;
    const entries: RangePart = [];
    for await (
      const entry of this.kv.list<EntryValue>({ start, end }, { limit, batchSize: limit })
    ) entries.push(entry);
    work.lists++;
    work.entries += entries.length;
    work.units += LIST_COST + entries.length * ENTRY_COST;
    const parts: (RangePart | null)[] = members.map(() => []);
    // Entries come in key order, a prefix's together: the member is looked up once per prefix.
    let previous: Deno.KvKey | null = null;
    let at = -1;
    let seen = -1;
    for (const entry of entries) {
      if (previous === null || !samePrefix(entry.key, previous)) {
        previous = entry.key;
        at = members.findIndex((m, i) => i > seen && samePrefix(entry.key, m));
        if (at >= 0) seen = at;
      }
      if (at >= 0) parts[at]!.push(entry);
    }
    // Cut short: the prefix listed last may go on, and the members after it were not reached.
    if (entries.length === limit) parts.fill(null, at >= 0 ? at : seen + 1);
    return parts;
  }
}

/** True when two keys share their prefix: every part but a key's last (its order key). */
function samePrefix(key: Deno.KvKey, other: Deno.KvKey): boolean {
  for (let i = 0; i < key.length - 1; i++) if (key[i] !== other[i]) return false;
  return true;
}
