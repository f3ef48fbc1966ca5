/**
 * The union of several prefix streams: the merge that lets many geohash cells or dictionary words
 * be read as one newest-first list, refilling the streams a page will need in one round trip.
 */
import type { Candidate } from "./candidate.ts";
import type { PrefixStream } from "./stream.ts";
import type { Payment } from "../../../domain/tasks/task.ts";

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

  /**
   * True when, without a read, the streams are known to hold another word entry of the payment
   * class (any class when undefined): a buffered one, or an unread lazy stream whose exact
   * counters say it holds entries. With `within`, only a buffered entry that passes it (its
   * position surely in the search circle) counts.
   */
  holdsMore(payment: Payment | undefined, within?: (c: Candidate) => boolean): boolean {
    if (within) {
      return this.streams.some((s) =>
        !s.lazy &&
        s.buffers((c) => !c.facet && (payment === undefined || c.payment === payment) && within(c))
      );
    }
    for (const s of this.streams) {
      if (s.lazy) {
        if (payment === undefined && (s.holds ?? 0) > 0) return true;
      } else {
        // A word entry: an overflow entry carries a facet, and its words are not known.
        const head = s.head;
        if (head && !head.facet && (payment === undefined || head.payment === payment)) {
          return true;
        }
      }
    }
    return false;
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
   * dry, a sparse geo page waited for a round trip per stream.
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
  return c.words !== undefined ? 2 : c.packed ? 1 : 0;
}
