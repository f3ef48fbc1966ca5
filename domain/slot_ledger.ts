/**
 * One subject's rate-limit slots as one instance sees them (last read plus own admissions), pure so
 * that the bookkeeping which lets instances share a budget can be tested alone.
 */
import {
  admit,
  decideTallied,
  firstSlot,
  slotIndex,
  tally,
  type WindowDecision,
  type WindowTally,
} from "./rate_window.ts";

/** What this instance admitted into one slot. */
interface LocalSlot {
  /** Requests this instance admitted into the slot, ever. */
  noted: number;
  /** Of those, handed to a flush (committed or in flight). */
  sent: number;
  /** Of those, committed to the store. */
  committed: number;
  /** `committed` when the last read began: later commits may be missing from that read. */
  committedAtRead: number;
}

/** Admissions to add to one slot in the store. */
export interface SlotWrite {
  index: number;
  count: number;
  /** This instance's first write to the slot, which must be swept once it leaves the window. */
  first: boolean;
}

/** The writes of one flush, settled once the store has answered. */
export interface Outbox {
  writes: SlotWrite[];
  /** Committed: they count as in the store. Not: they are sent again by the next flush. */
  settle(committed: boolean): void;
}

/** A read of slots `from`..`to` under way; `apply` takes the counts the store held. */
export interface SlotRead {
  from: number;
  to: number;
  apply(found: ReadonlyMap<number, number>, now: number): void;
}

/** One subject's slots under one window length. */
export class SlotLedger {
  /** Count of each slot in the store, as last read. */
  #shared = new Map<number, number>();
  /** `#shared` plus this instance's admissions it may lack: what decisions use. */
  #counts = new Map<number, number>();
  /** `#counts` tallied for the current window, null once a read has changed them. */
  #tally: WindowTally | null = null;
  /** This instance's admissions by slot, kept until a read began after all were committed. */
  #local = new Map<number, LocalSlot>();
  /** The newest slot this instance has written to. */
  #marked = -Infinity;
  #readAt = -Infinity;

  constructor(private readonly windowMs: number) {}

  /** When the counts were last read from the store; -Infinity before the first read. */
  get readAt(): number {
    return this.#readAt;
  }

  /** Decides one request at `now` against `limit`, counting it when allowed. */
  take(now: number, limit: number): WindowDecision {
    const { windowMs } = this;
    let window = this.#tally;
    if (window === null || window.first !== firstSlot(now, windowMs)) {
      window = this.#tally = tally(this.#counts, now, windowMs);
    }
    const decision = decideTallied(window, now, limit);
    if (decision.allowed) {
      const index = slotIndex(now, windowMs);
      this.#counts.set(index, (this.#counts.get(index) ?? 0) + 1);
      admit(window, now);
      let slot = this.#local.get(index);
      if (!slot) {
        this.#local.set(index, slot = { noted: 0, sent: 0, committed: 0, committedAtRead: 0 });
      }
      slot.noted++;
    }
    return decision;
  }

  /** Admissions not yet committed to the store. */
  get pending(): number {
    let total = 0;
    for (const slot of this.#local.values()) total += slot.noted - slot.committed;
    return total;
  }

  /** Hands every admission not yet sent to a flush. */
  send(): Outbox {
    const markedBefore = this.#marked;
    const writes: SlotWrite[] = [];
    const sent: { slot: LocalSlot; count: number }[] = [];
    for (const [index, slot] of this.#local) {
      const count = slot.noted - slot.sent;
      if (count <= 0) continue;
      const first = index > this.#marked;
      if (first) this.#marked = index;
      slot.sent += count;
      sent.push({ slot, count });
      writes.push({ index, count, first });
    }
    return {
      writes,
      settle: (committed) => {
        for (const { slot, count } of sent) {
          if (committed) slot.committed += count;
          else slot.sent -= count;
        }
        if (!committed) this.#marked = markedBefore;
      },
    };
  }

  /**
   * Starts a read of slots `from`..`to`. What this instance has committed to them by now may be in
   * what the read finds; what it commits later may not, so it keeps counting that itself.
   */
  beginRead(from: number, to: number): SlotRead {
    const marks = new Map<LocalSlot, number>();
    for (const [index, slot] of this.#local) {
      if (index >= from && index <= to) marks.set(slot, slot.committed);
    }
    return { from, to, apply: (found, now) => this.#apply({ from, to, marks }, found, now) };
  }

  /** The counts of slots `from`..`to` become what the read found plus what it may lack. */
  #apply(
    read: { from: number; to: number; marks: Map<LocalSlot, number> },
    found: ReadonlyMap<number, number>,
    now: number,
  ): void {
    const { from, to, marks } = read;
    const first = firstSlot(now, this.windowMs);
    for (let index = from; index <= to; index++) {
      const count = found.get(index);
      if (count === undefined) this.#shared.delete(index);
      else this.#shared.set(index, count);
      const slot = this.#local.get(index);
      const mark = slot && marks.get(slot);
      if (slot && mark !== undefined) slot.committedAtRead = mark;
      // All of it is in the shared count: the flush and the idle check then walk only the slots
      // of the last moments.
      if (slot && slot.noted === slot.committedAtRead) this.#local.delete(index);
      const counted = (count ?? 0) + (slot ? slot.noted - slot.committedAtRead : 0);
      if (index >= first && counted > 0) this.#counts.set(index, counted);
      else this.#counts.delete(index);
    }
    this.#forgetBefore(first);
    this.#tally = null;
    this.#readAt = now;
  }

  /** Drops what lies before the window, keeping admissions not yet committed. */
  #forgetBefore(first: number): void {
    for (const index of this.#shared.keys()) if (index < first) this.#shared.delete(index);
    for (const index of this.#counts.keys()) if (index < first) this.#counts.delete(index);
    for (const [index, slot] of this.#local) {
      if (index < first && slot.noted === slot.committed) this.#local.delete(index);
    }
  }
}
