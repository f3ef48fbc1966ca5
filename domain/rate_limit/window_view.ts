/**
 * One instance's last view of a subject's shared window: the slots as last read, plus its own
 * grants and give-backs since, tallied again only when they change or the window slides.
 */
import { firstSlot, type SlotCounts, tally, type WindowTally } from "./rate_window.ts";

export class WindowView {
  #counts = new Map<number, number>();
  #tally: WindowTally | null = null;
  #readAt = -Infinity;

  constructor(private readonly windowMs: number) {}

  /** When the window was last read; -Infinity before the first read. */
  get readAt(): number {
    return this.#readAt;
  }

  /** A fresh read of the window's slots at `now` replaces the view. */
  read(counts: SlotCounts, now: number): void {
    this.#counts = new Map(counts);
    this.#tally = null;
    this.#readAt = now;
  }

  /** Adds `count` units to `slot` (a grant), or takes them off when negative (a give-back). */
  add(slot: number, count: number) {
    const next = (this.#counts.get(slot) ?? 0) + count;
    if (next > 0) this.#counts.set(slot, next);
    else this.#counts.delete(slot);
    this.#tally = null;
  }

  /** The window at `now` as this instance sees it. */
  at(now: number): WindowTally {
    const { windowMs } = this;
    let window = this.#tally;
    if (window === null || window.first !== firstSlot(now, windowMs)) {
      window = this.#tally = tally(this.#counts, now, windowMs);
    }
    return window;
  }
}
