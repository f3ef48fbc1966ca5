/**
 * One nearest-first page's walk (`nearest_page.ts`): its queue of cells and tasks, and how a
 * cell enters it, is split, and how the tasks a list finds enter it once each.
 */
import type { ExploreFilters } from "../../../domain/explore.ts";
import { BASE32, childBounds, geohashBounds } from "../../../domain/geo/geohash.ts";
import {
  type GeoBox,
  minDistanceToBoxKm,
  roughDistanceToBoxKm,
  roughFrom,
} from "../../../domain/geo/geo.ts";
import { COUNT_PRECISION, type GeoLayer, POINT_PRECISION } from "../index/entries.ts";
import { type PackedCard, packedSpotsLeft, packedUserId } from "../index/card.ts";
import { packedFacet } from "../index/packed_facet.ts";
import { facetMatch } from "../scan/checks.ts";
import { explore } from "../../keyspace.ts";
import { type CellNode, Queue } from "./queue.ts";
import { type Found, type NearestWork, withWords } from "./reads.ts";
import { farBoundKm, isAfter, MAX_LIST, type NearestPosition } from "./page_bounds.ts";
import type { CellChoices } from "./cells.ts";
import type { DiscRead } from "./discs.ts";

export interface NearestWalkOptions {
  filters: ExploreFilters;
  after: NearestPosition | null;
  /** Authors whose account purge is pending: their tasks are already gone. */
  hidden: Set<string>;
  work: NearestWork;
}

/** The queue and the reads of one page; the page's loop (`exploreNearest`) drives it. */
export class NearestWalk {
  readonly queue = new Queue();
  readonly work: NearestWork;
  readonly #kv: Deno.Kv;
  readonly #filters: ExploreFilters;
  readonly #geo: NonNullable<ExploreFilters["geo"]>;
  readonly #point: ReturnType<typeof roughFrom>;
  readonly #after: NearestPosition | null;
  readonly #hidden: Set<string>;
  /**
   * A task can be listed twice (a probe's cell read again, a cell read again after it
   * overflowed): it enters the queue once.
   */
  readonly #seen = new Set<string>();
  /**
   * How far past the circle a counter cell's point cells can hold a match: the widest class with
   * tasks there that the page walks by its point cells (`narrow`); absent, none.
   */
  #reachKm = new Map<string, number>();

  constructor(kv: Deno.Kv, { filters, after, hidden, work }: NearestWalkOptions) {
    if (!filters.geo) throw new Error("sort=distance needs a geo query");
    this.#kv = kv;
    this.#filters = filters;
    this.#geo = filters.geo;
    this.#point = roughFrom(filters.geo);
    this.#after = after;
    this.#hidden = hidden;
    this.work = work;
  }

  /**
   * Point cells are walked for the classes counted in each counter cell, each within its own
   * reach: a cell that only a class read by its discs could reach holds nothing more to read.
   */
  narrow(classes: { layer: GeoLayer; hash: string; count: number }[]): void {
    const reach = new Map<string, number>();
    for (const { layer, hash, count } of classes) {
      if (count > 0) reach.set(hash, Math.max(reach.get(hash) ?? 0, layer.maxRadiusKm));
    }
    this.#reachKm = reach;
  }

  /** How far past the circle a point cell can hold a match, or -1 where it cannot. */
  #reachOf(hash: string): number {
    return this.#reachKm.get(hash.slice(0, COUNT_PRECISION)) ?? -1;
  }

  /** False for a point cell that cannot hold a match after the page's start. */
  reaches({ hash, at, box }: { hash: string; at: number; box: GeoBox }): boolean {
    const after = this.#after;
    const reach = this.#reachOf(hash);
    return reach >= 0 && at <= this.#geo.radiusKm + reach &&
      !(after && farBoundKm(at, box) < after.d);
  }

  pushCell(hash: string, size: number): CellNode | null {
    const box = geohashBounds(hash);
    const at = minDistanceToBoxKm(this.#geo.lon, this.#geo.lat, box);
    if (!this.reaches({ hash, at, box })) return null;
    const node: CellNode = { cell: true, at, hash, size, box, exact: true };
    this.queue.push(node);
    return node;
  }

  /** A cell layer's cell, listed whole: its tasks may lie anywhere, so it waits at 0. */
  pushDisc({ cellLayer, hash, through, size }: DiscRead): CellNode {
    const box = geohashBounds(hash);
    const node: CellNode = { cell: true, at: 0, hash, size, box, exact: true, cellLayer, through };
    this.queue.push(node);
    return node;
  }

  /**
   * A split cell's finer cells wait by their rough bound: most are never reached, and the exact
   * one (trigonometry) is computed by `refine` for those that are.
   */
  split(node: CellNode): void {
    const boxes = childBounds(node.hash, node.box);
    const reach = this.#geo.radiusKm + this.#reachOf(node.hash);
    for (let i = 0; i < boxes.length; i++) {
      const box = boxes[i];
      const at = roughDistanceToBoxKm(this.#point, box);
      if (at > reach) continue;
      const { size } = node;
      this.queue.push({
        cell: true,
        at,
        hash: node.hash + BASE32[i],
        size,
        box,
        exact: false,
      });
    }
  }

  /** A cell out of the queue by its rough bound goes back by its exact one, if still in reach. */
  refine(node: CellNode): void {
    node.at = minDistanceToBoxKm(this.#geo.lon, this.#geo.lat, node.box);
    node.exact = true;
    if (this.reaches(node)) this.queue.push(node);
  }

  #keep({ key, packed }: Found): number | null {
    if (this.#seen.has(key)) return null;
    const filters = this.#filters;
    const d = facetMatch(packedFacet(packed), filters);
    if (d === null || !isAfter(d, key, this.#after) || this.#hidden.has(packedUserId(packed))) {
      return null;
    }
    if (filters.hasSpots && packedSpotsLeft(packed) === 0) return null;
    return d;
  }

  /** The tasks a read found that match enter the queue, each once. */
  async take(found: Found[]): Promise<void> {
    const passing: (Found & { d: number | null })[] = [];
    for (const f of found) {
      const d = this.#keep(f);
      if (d !== null) passing.push({ ...f, d });
    }
    // With a search, the documents (read fresh, while other cells' tasks may enter the queue)
    // are checked again in full; without, the check above stands but for a task seen meanwhile.
    const search = this.#filters.search;
    const kept = search.length > 0
      ? (await withWords(this.#kv, passing, search, this.work)).map((f) => ({
        ...f,
        d: this.#keep(f),
      }))
      : passing;
    for (const { key, packed, d } of kept) {
      if (d === null || this.#seen.has(key)) continue;
      this.#seen.add(key);
      this.queue.push({ cell: false, at: d, key, packed });
    }
  }

  /**
   * Lists a cell layer's cell, or run of cells (`through`), whole: it is never split, so it needs
   * no room. A run's tasks between its cells enter the queue like any other.
   */
  async #fetchWhole({ cellLayer, hash, through }: CellNode & { cellLayer: string }): Promise<void> {
    const found: Found[] = [];
    this.work.lists++;
    const selector = through
      ? explore.byCellRange(cellLayer, hash, through)
      : { prefix: explore.byCellPrefix(cellLayer, hash) };
    const entries = this.#kv.list<PackedCard>(selector, { batchSize: MAX_LIST });
    for await (const entry of entries) {
      this.work.entries++;
      found.push({ key: entry.key.at(-1) as string, packed: entry.value });
    }
    await this.take(found);
  }

  /**
   * Lists a run of point cells (one key range, `siblingRuns`) as one, the tasks of every class
   * there: a city's fine cells around the point hold a few tasks each, and a list costs as much
   * as ten entries.
   * The tasks between the run's cells are listed too; they enter the queue like any other.
   */
  async fetch(run: CellNode[], cells: CellChoices): Promise<void> {
    const { hash, cellLayer } = run[0];
    if (cellLayer) return await this.#fetchWhole({ ...run[0], cellLayer });
    const splittable = hash.length < POINT_PRECISION;
    // Room for the tasks expected between the run's cells too, which a run lists with them.
    let room = 1;
    run.forEach((cell, i) => {
      room += cells.roomOf(cell) + (i > 0 ? Math.ceil(2 * cells.gapBetween(run[i - 1], cell)) : 0);
    });
    const probe = splittable ? Math.min(MAX_LIST, room) : undefined;
    const found: Found[] = [];
    let point = "";
    this.work.lists++;
    const from = cells.probedUpTo(hash);
    const range = {
      // Strictly after the probe's last entry: a key sorts before any longer key it starts.
      start: from && from !== "read" ? [...from, ""] : explore.byPointRange(hash).start,
      end: explore.byPointRange(run[run.length - 1].hash).end,
    };
    const entries = this.#kv.list<PackedCard>(range, {
      limit: probe,
      batchSize: probe ?? MAX_LIST,
    });
    for await (const entry of entries) {
      this.work.entries++;
      found.push({ key: entry.key.at(-1) as string, packed: entry.value });
      point = entry.key.at(-2) as string;
    }
    await this.take(found);
    if (probe === undefined || found.length < probe) return;
    // Overflowed: the entries came in key order, so the cells and finer cells before the last
    // one's were read whole; the rest are read again (their tasks read so far enter the queue once).
    for (const cell of run) {
      if (point.startsWith(cell.hash)) {
        const reached = point.slice(0, cell.hash.length + 1);
        for (const c of BASE32) {
          if (cell.hash + c >= reached) this.pushCell(cell.hash + c, cell.size);
        }
      } else if (cell.hash > point) this.pushCell(cell.hash, cell.size);
    }
  }
}
