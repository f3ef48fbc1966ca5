/**
 * The nearest-first walk's queue (`nearest_page.ts`): cells and tasks in one binary min-heap,
 * by distance, so that a task leaves only once no unread cell can hold a nearer one.
 */
import type { GeoBox } from "../../../domain/geo/geo.ts";
import type { PackedCard, PackedDoc } from "../index/card.ts";

/**
 * A point cell (tasks of every class, `explore.byPointRange`), or a cell layer's cell.
 * `size`: at most this many tasks (its counters' exact count, or its cell's), or -1 if unknown.
 * `at` is a lower bound of the distance to any point of `box`: the exact one, or until `exact`
 * a rough one, which the walk makes exact when the cell leaves the queue.
 */
export type CellNode = {
  cell: true;
  at: number;
  hash: string;
  size: number;
  box: GeoBox;
  exact: boolean;
  /**
   * Set for a cell of a cell layer (`discs.ts`), listed whole and never split:
   * `at` is then 0, as its tasks may lie anywhere around it.
   */
  cellLayer?: string;
  /** With `cellLayer`: the last cell of a run listed as one range from `hash` (`discs.ts`). */
  through?: string;
};
/** A task waits with its card packed: only the ones a page shows are unpacked. */
export type Node = CellNode | {
  cell: false;
  at: number;
  key: string;
  packed: PackedCard | PackedDoc;
};

/** Pops first: the smaller distance; at a tie cells (which may hold a newer task), then newer. */
function first(a: Node, b: Node): boolean {
  if (a.at !== b.at) return a.at < b.at;
  if (a.cell !== b.cell) return a.cell;
  return !a.cell && !b.cell && a.key > b.key;
}

/** A binary min-heap under `first`. */
export class Queue {
  #items: Node[] = [];
  /** Tasks (not cells) in the queue. */
  items = 0;
  peek(): Node | undefined {
    return this.#items[0];
  }
  /** The distance of the queue's `n`th nearest task, or Infinity when it holds fewer. */
  itemDistance(n: number): number {
    if (n <= 0) return 0;
    if (this.items < n) return Infinity;
    const at = this.#items.filter((i) => !i.cell).map((i) => i.at).sort((a, b) => a - b);
    return at[n - 1];
  }
  push(node: Node) {
    if (!node.cell) this.items++;
    const items = this.#items;
    items.push(node);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!first(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }
  pop(): Node | undefined {
    const items = this.#items;
    const top = items[0];
    if (top && !top.cell) this.items--;
    const last = items.pop();
    if (items.length === 0 || !last) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && first(items[l], items[m])) m = l;
      if (r < items.length && first(items[r], items[m])) m = r;
      if (m === i) return top;
      [items[i], items[m]] = [items[m], items[i]];
      i = m;
    }
  }
}
