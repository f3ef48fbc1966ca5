/** Newest-first streams over explore index prefixes, a small batch at a time. */
import { type Candidate, candidateOf, type EntryValue } from "./candidate.ts";
import { keyId } from "../../key_id.ts";
import type { RangeRead } from "./range.ts";
import { ENTRY_COST, LIST_COST, type Work } from "./work.ts";

// The prototype found 16 the best first batch; later batches grow when a stream keeps giving.
export const FIRST_BATCH = 16;
/** Largest first batch a planner may ask for, when counters say a stream is worth reading whole. */
export const MAX_FIRST_BATCH = 256;
/** Largest batch of any list, so that one list's entries stay within a few hundred KiB. */
export const MAX_BATCH = 512;
/** Deno KV's largest list batch. */
const MAX_LIST_BATCH = 1000;

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
  #unordered: boolean;

  private readonly prefix: Deno.KvKey;
  private readonly work: Work;
  /**
   * Set for a stream the merge may leave unread while it holds newer candidates: every key of
   * it sorts below this (an older word epoch's, which the page is not expected to reach).
   */
  readonly ceiling: string | undefined;
  /** Entries its counters say it holds, where they are exact (a word epoch's total). */
  readonly holds: number | undefined;

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
      /**
       * True for a prefix whose keys are not in order-key order below it (a word epoch, whose
       * zones come between): its one fill lists it whole, in batches of `batch`, and sorts.
       */
      unordered?: boolean;
      /** See `holds`. */
      holds?: number;
    },
  ) {
    this.holds = stream.holds;
    this.#range = stream.range;
    this.#unordered = stream.unordered ?? false;
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

  /** True when an entry read but not yet taken passes `test`. */
  buffers(test: (c: Candidate) => boolean): boolean {
    for (let i = this.#at; i < this.#buffer.length; i++) if (test(this.#buffer[i])) return true;
    return false;
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
    if (this.#unordered) return this.#fillUnordered();
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

  /**
   * Lists the whole prefix, however many entries it holds (its counters may be behind the
   * index), and keeps those below `before`, newest first.
   */
  async #fillUnordered(): Promise<void> {
    const batchSize = Math.max(FIRST_BATCH, Math.min(MAX_LIST_BATCH, this.#batch));
    const entries: Deno.KvEntry<EntryValue>[] = [];
    for await (const entry of this.kv.list<EntryValue>({ prefix: this.prefix }, { batchSize })) {
      entries.push(entry);
    }
    this.work.lists += Math.max(1, Math.ceil(entries.length / batchSize));
    this.work.entries += entries.length;
    this.work.units += LIST_COST + entries.length * ENTRY_COST;
    this.preloadWhole(entries);
  }

  /**
   * Takes every entry of its prefix, in any order, as its whole content: those below `before`,
   * newest first. The stream never lists.
   */
  preloadWhole(entries: Deno.KvEntry<EntryValue>[]): void {
    this.#read = true;
    const buffer: Candidate[] = [];
    for (const entry of entries) {
      const key = entry.key[entry.key.length - 1] as string;
      if (this.#before === null || key < this.#before) buffer.push(candidateOf(key, entry.value));
    }
    buffer.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
    this.#buffer = buffer;
    this.#at = 0;
    this.#done = true;
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
