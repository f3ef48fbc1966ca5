/**
 * Newest-first streams over explore index prefixes, and their union: the merge that lets many
 * geohash cells or dictionary words be read as one list, a small batch at a time.
 */
import type { Payment } from "../../../domain/tasks/task.ts";
import {
  type Facet,
  type FacetFields,
  type PackedCard,
  type PackedDoc,
  packedUserId,
  readFacet,
} from "../index/explore_index.ts";
import { packedFacet } from "../index/explore_packed_facet.ts";
import { PACKED_ITEM_LENGTH } from "../../tasks/packed_item.ts";
import { keyId } from "../../tasks/task_indexes.ts";
import type { RangeRead } from "./explore_range.ts";

/**
 * One candidate: its order key, its payment class (which names its document's key), its facet
 * fields when the entry gives them (all but word entries), its card when the index holds it
 * (geo, country, name, all) and its search words when the index holds the whole document (all).
 * The card stays packed as listed: most candidates are rejected on their facet, and a match
 * unpacks only the item it shows.
 */
export class Candidate {
  facet: FacetFields | undefined;
  terms: string[] | undefined;
  /** True once its card is the one of a document read after its entry (see `load`). */
  reloaded = false;
  #packed: PackedCard | PackedDoc | undefined;

  constructor(
    readonly key: string,
    readonly payment: Payment,
    from?: { facet: FacetFields; packed?: PackedCard | PackedDoc },
  ) {
    this.facet = from?.facet;
    this.#packed = from?.packed;
    if (from?.packed?.length === PACKED_ITEM_LENGTH + 3) {
      this.terms = from.packed[PACKED_ITEM_LENGTH + 2] as string[];
    }
  }

  /** The packed card (or document) it holds, or undefined. */
  get packed(): PackedCard | PackedDoc | undefined {
    return this.#packed;
  }

  /** Its author, read in place; it must hold a card. */
  get userId(): string {
    return packedUserId(this.#packed!);
  }

  /**
   * Takes its document, read after its entry: card, facet and words are the document's from then
   * on; null (gone since the entry was listed: deleted or changed in between) leaves no card.
   */
  load(doc: PackedDoc | null): void {
    this.reloaded = true;
    this.#packed = doc ?? undefined;
    if (doc) {
      this.facet = packedFacet(doc);
      this.terms = doc[doc.length - 1] as string[];
    }
  }
}

/**
 * Value of an index entry: a word's paid flag, a facet (overflow), a packed card (geo, point,
 * country, name) or a packed document (all).
 */
export type EntryValue = boolean | Facet | PackedCard | PackedDoc;

/** A candidate from an index entry's value. */
export function candidateOf(key: string, value: EntryValue): Candidate {
  if (typeof value === "boolean") return new Candidate(key, value ? "Paid" : "Pro-bono");
  // A facet starts with its longitude, a packed card with the task's id.
  if (typeof value[0] === "number") {
    const facet = readFacet(value as Facet);
    return new Candidate(key, facet.payment, { facet });
  }
  const packed = value as PackedCard | PackedDoc;
  const facet = packedFacet(packed);
  return new Candidate(key, facet.payment, { facet, packed });
}

/** Counts the storage work of one query, so that a page can stop at a fixed budget. */
export class Work {
  units = 0;
  lists = 0;
  entries = 0;
  docs = 0;
}

// Relative costs of the local backend's operations, in units of one listed entry, so that a
// budget in units bounds a page's time (docs/explore.md, "Planner").
export const LIST_COST = 30;
export const ENTRY_COST = 1;
export const DOC_COST = 7;

// The prototype found 16 the best first batch; later batches grow when a stream keeps giving.
export const FIRST_BATCH = 16;
/** Largest first batch a planner may ask for, when counters say a stream is worth reading whole. */
export const MAX_FIRST_BATCH = 256;
/** Largest batch of any list, so that one list's entries stay within a few hundred KiB. */
export const MAX_BATCH = 512;

/** Entries of one key prefix whose last part is an order key, newest first, below `before`. */
export class PrefixStream {
  #buffer: Candidate[] = [];
  #at = 0;
  #taken = 0;
  #done = false;
  #batch: number;
  #before: string | null;
  #read = false;
  #range: { read: RangeRead; index: number } | undefined;

  private readonly prefix: Deno.KvKey;
  private readonly work: Work;
  /**
   * Set for a stream the merge may leave unread while it holds newer candidates: every key of
   * it sorts below this (an older word epoch's, which the page is not expected to reach).
   */
  readonly ceiling: string | undefined;

  constructor(
    private readonly kv: Deno.Kv,
    stream: {
      prefix: Deno.KvKey;
      /** Only entries strictly older than this order key; null for the newest. */
      before: string | null;
      work: Work;
      /** Entries of the first read. */
      batch?: number;
      /** A list of several prefixes, this one its `index`th, that makes the first read. */
      range?: { read: RangeRead; index: number };
      /** See `ceiling`. */
      ceiling?: string;
    },
  ) {
    this.#range = stream.range;
    this.ceiling = stream.ceiling;
    this.prefix = stream.prefix;
    this.work = stream.work;
    this.#before = stream.before;
    this.#batch = stream.batch ?? FIRST_BATCH;
  }

  /**
   * Takes the entries of a list already read (newest first, below `before`, at most `batch`) as
   * this stream's first fill: a planner that guessed the stream can read it in its own round trip.
   */
  preload(entries: Deno.KvEntry<EntryValue>[], batch: number): void {
    this.#read = true;
    this.#buffer = entries.map((e) => candidateOf(e.key[e.key.length - 1] as string, e.value));
    this.#at = 0;
    if (entries.length < batch) this.#done = true;
    else this.#before = this.#buffer[this.#buffer.length - 1].key;
    this.#batch = Math.min(MAX_BATCH, batch * 2);
  }

  /**
   * Asks the next fill for at least `entries` (at most `MAX_BATCH`): a planner that expects the
   * page to read deep into this stream gets there in one list rather than by doubling batches.
   */
  expect(entries: number): void {
    this.#batch = Math.max(this.#batch, Math.min(MAX_BATCH, Math.ceil(entries)));
  }

  /** Its prefix's id (`keyId`): which index range it reads. */
  get id(): string {
    return keyId(this.prefix);
  }

  /** True until its first fill or preload. */
  get unread(): boolean {
    return !this.#read;
  }

  /** Entries its next fill asks for. */
  get batch(): number {
    return this.#batch;
  }

  /** True when the buffer is spent but the store may hold more. */
  get needsFill(): boolean {
    return this.#at >= this.#buffer.length && !this.#done;
  }

  /** True while the merge may leave it unread (see `ceiling`). */
  get lazy(): boolean {
    return this.ceiling !== undefined && !this.#read;
  }

  /** The newest remaining candidate, once filled; null at the end. */
  get head(): Candidate | null {
    return this.#at < this.#buffer.length ? this.#buffer[this.#at] : null;
  }

  /** Read but not yet taken. */
  get buffered(): number {
    return this.#buffer.length - this.#at;
  }

  /** Taken so far: the stream's share of the merge. */
  get taken(): number {
    return this.#taken;
  }

  /** True when the store may hold more than was read. */
  get more(): boolean {
    return !this.#done;
  }

  advance(): void {
    this.#at++;
    this.#taken++;
  }

  /**
   * Reads the next batch, strictly older than everything read so far, after what is still
   * buffered; `cap` bounds a batch that would otherwise have doubled past what the page is
   * expected to need, and `want`, what the merge expects of this stream, sets the batch instead
   * (a refill then reads past a doubled batch where the page needs it: refilled at most double,
   * a sparse circle's densest stream ran dry again a round trip later).
   */
  async fill(cap = Infinity, want?: number): Promise<void> {
    if (this.#range && !this.#read) {
      const part = await this.#range.read.part(this.#range.index);
      if (part !== null) return this.#whole(part);
    }
    const selector: Deno.KvListSelector = this.#before === null
      ? { prefix: this.prefix }
      : { start: this.prefix, end: [...this.prefix, this.#before] };
    this.#read = true;
    const batch = want === undefined
      ? Math.min(this.#batch, Math.max(FIRST_BATCH, Math.ceil(cap)))
      : Math.min(MAX_BATCH, Math.max(FIRST_BATCH, Math.ceil(want)));
    const buffer: Candidate[] = [];
    const iter = this.kv.list<EntryValue>(selector, {
      reverse: true,
      limit: batch,
      batchSize: batch,
    });
    for await (const entry of iter) {
      buffer.push(candidateOf(entry.key[entry.key.length - 1] as string, entry.value));
    }
    this.work.lists++;
    this.work.entries += buffer.length;
    this.work.units += LIST_COST + buffer.length * ENTRY_COST;
    this.#buffer = this.#at < this.#buffer.length
      ? [...this.#buffer.slice(this.#at), ...buffer]
      : buffer;
    this.#at = 0;
    if (buffer.length < batch) this.#done = true;
    else this.#before = buffer[buffer.length - 1].key;
    this.#batch = Math.min(MAX_BATCH, batch * 2);
  }

  /** Takes every entry of its prefix (oldest first, as a range lists them) below `before`. */
  #whole(entries: Deno.KvEntry<EntryValue>[]): void {
    this.#read = true;
    const buffer: Candidate[] = [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const key = entries[i].key[entries[i].key.length - 1] as string;
      if (this.#before === null || key < this.#before) {
        buffer.push(candidateOf(key, entries[i].value));
      }
    }
    this.#buffer = buffer;
    this.#at = 0;
    this.#done = true;
  }
}

/** Several streams merged newest first; a candidate found in more than one comes out once. */
export class UnionStream {
  constructor(private readonly streams: PrefixStream[]) {}

  /**
   * The newest remaining candidate of all streams, or null when all are spent; `need`, the
   * entries the caller still expects to read, bounds what a refill reads.
   */
  async next(need = Infinity): Promise<Candidate | null> {
    for (let due = this.#due(); due.length > 0; due = this.#due()) {
      await Promise.all(this.#refills(due, need));
    }
    return this.take();
  }

  /**
   * True when no stream waits for a refill: `take` then gives what `next` would, without the
   * promise and the turn an await costs for each of the hundreds of candidates a page may take.
   */
  get ready(): boolean {
    // One pass without allocation: it is asked for every candidate a page takes.
    let frontier: string | null = null;
    let top: string | null = null;
    for (const s of this.streams) {
      if (s.lazy) {
        if (top === null || s.ceiling! > top) top = s.ceiling!;
        continue;
      }
      if (s.needsFill) return false;
      const key = s.head?.key;
      if (key !== undefined && (frontier === null || key > frontier)) frontier = key;
    }
    return top === null || (frontier !== null && frontier >= top);
  }

  /**
   * The streams to fill before the newest candidate is known: every spent one but the lazy
   * ones; once none is left and the page has got down to a lazy one's ceiling, every lazy one,
   * in one round trip (a page that reached past the epochs it expected to fill from is one whose
   * estimate was off, and an epoch at a time would cost it a round trip each).
   */
  #due(): PrefixStream[] {
    const plain = this.streams.filter((s) => s.needsFill && !s.lazy);
    if (plain.length > 0 || this.ready) return plain;
    return this.streams.filter((s) => s.lazy);
  }

  /** The newest remaining candidate of streams that are `ready`, or null when all are spent. */
  take(): Candidate | null {
    let best: Candidate | null = null;
    for (const s of this.streams) {
      const head = s.head;
      if (head && (best === null || head.key > best.key)) best = head;
    }
    if (best === null) return null;
    for (const s of this.streams) {
      // Prefer the copy that carries the most: the document, else the card.
      if (s.head?.key === best.key) {
        if (richness(s.head) > richness(best)) best = s.head;
        s.advance();
      }
    }
    return best;
  }

  /**
   * The empty streams' refills, and in the same round trip those of the streams that, at their
   * share of the merge so far, will run dry before the page ends: refilled one by one as each ran
   * dry, a sparse geo page took ~7 sequential round trips at 1M bench tasks.
   */
  #refills(empty: PrefixStream[], need: number): Promise<void>[] {
    const taken = this.streams.reduce((sum, s) => sum + s.taken, 0);
    if (need === Infinity || taken === 0) return empty.map((s) => s.fill(need));
    const fills: Promise<void>[] = [];
    for (const s of this.streams) {
      if (!s.more || (s.lazy && !empty.includes(s))) continue;
      const expected = need * s.taken / taken;
      if (s.needsFill) fills.push(s.fill(need, expected));
      else if (s.buffered < expected) {
        const want = expected - s.buffered;
        fills.push(s.fill(want, want));
      }
    }
    return fills;
  }
}

function richness(c: Candidate): number {
  return c.terms ? 2 : c.packed ? 1 : 0;
}
