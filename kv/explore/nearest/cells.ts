/**
 * A nearest-first walk's cell decisions (`nearest_page.ts`): whether a cell it reaches was
 * read already by a probe, is listed whole or split into its finer cells, and how much room a
 * list leaves it.
 */
import { BASE32, childBounds } from "../../../domain/geo/geohash.ts";
import type { GeoFilter } from "../../../domain/explore.ts";
import { minDistanceToBoxKm, roughDistanceToBoxKm, roughFrom } from "../../../domain/geo/geo.ts";
import { COUNT_PRECISION, type GeoLayer, POINT_PRECISION } from "../index/entries.ts";
import type { Density, Probe } from "../shared/density.ts";
import { SPARSE_REACH_KM } from "../shared/geo_constants.ts";
import type { CellNode } from "./queue.ts";
import {
  COARSE_FACTOR,
  LIST_ENTRIES,
  WHOLE_CELL_FACTOR,
  WHOLE_CELLS_ENTRIES,
} from "./page_bounds.ts";

/** What a walk does with a cell that leaves its queue. */
export type CellChoice = "read" | "fetch" | "split";

export interface CellChoicesOptions {
  geo: GeoFilter;
  density: Density;
  /** The probes read with the counters (their entries are in the walk's queue already). */
  probes: Probe[];
  limit: number;
  /** A cell expected to hold more than this is split rather than listed. */
  splitAbove: number;
  /** The distance the page starts at: the previous page's end, or 0. */
  from: number;
  /** False for a point cell no class the page walks can reach (`NearestWalk.reaches`). */
  reaches: (cell: CellNode) => boolean;
}

/** The decisions of one page's walk, sized by the density measured around its point. */
export class CellChoices {
  /**
   * How far the page is expected to read: the first batch's reach, then each batch's bound (the
   * walk moves it on).
   */
  horizon: number;
  /**
   * Where a page reaches far (a sparse area), the small counter cells the first batch reads whole
   * whatever their distance; read, they are skipped when the walk reaches them.
   */
  readonly early = new Set<CellNode>();
  /** Whether the page reaches far: `early` was chosen. */
  far = false;
  /**
   * The disc classes read by their cells over the circle (`discs.ts`): the point cells are
   * walked only as far as the other classes reach.
   */
  readonly byDisc = new Set<GeoLayer>();
  /**
   * The density measured around the point holds as far again as a first page is expected to
   * reach; a later page far out reads by the counters, as a ring of cells at a city's density
   * would take thousands of lists.
   */
  readonly local: number;
  readonly #geo: GeoFilter;
  readonly #point: ReturnType<typeof roughFrom>;
  readonly #density: Density;
  readonly #splitAbove: number;
  readonly #reaches: CellChoicesOptions["reaches"];
  /** The point cells read whole by the probes: inside one, nothing is left to read. */
  readonly #whole: string[];
  /**
   * A probe that overflowed read its cell in key order up to its last entry: a city cell inside
   * it that ends before that entry's point is read, one that holds it is read on from there.
   */
  readonly #partial: { hash: string; lastKey: Deno.KvKey; point: string }[];

  constructor({ geo, density, probes, limit, splitAbove, from, reaches }: CellChoicesOptions) {
    this.#geo = geo;
    this.#reaches = reaches;
    this.#point = roughFrom(geo);
    this.#density = density;
    this.#splitAbove = splitAbove;
    this.#whole = probes.filter((p) => p.whole).map((p) => p.hash);
    this.#partial = probes.flatMap((p) =>
      p.lastKey ? [{ hash: p.hash, lastKey: p.lastKey, point: p.lastKey.at(-2) as string }] : []
    );
    this.local = 2 * density.reach(0, limit + 1);
    this.horizon = density.reach(from, limit + 1);
  }

  /** Picks the early cells among the counter cells the walk was seeded with. */
  chooseEarly(seeded: CellNode[], from: number, limit: number): void {
    if (this.#density.reach(from, limit + 1) <= SPARSE_REACH_KM) return;
    this.far = true;
    const wholeCell = WHOLE_CELL_FACTOR * this.#splitAbove;
    let entries = 0;
    for (const cell of seeded.sort((a, b) => a.at - b.at)) {
      if (cell.size > wholeCell || this.status(cell) === "read") continue;
      if (entries + cell.size > WHOLE_CELLS_ENTRIES) break;
      this.early.add(cell);
      entries += cell.size;
    }
  }

  /**
   * With every disc class read by its disc cells, the point cells are walked no farther than the
   * centre-keyed classes reach (25 km past the circle): the early cells, there for the classes
   * matching hundreds of km out, would be read whole for the few tasks within that reach.
   */
  walking(classes: GeoLayer[]): void {
    if (classes.every((layer) => !layer.disc)) this.early.clear();
  }

  /** The choice for a cell leaving the queue: an early cell is listed whatever its status. */
  choose(cell: CellNode): CellChoice {
    return this.early.has(cell) ? "fetch" : this.status(cell);
  }

  /** Whether a point cell was read whole by a probe ("read"), partly (from a key on), or not. */
  probedUpTo(hash: string): "read" | Deno.KvKey | null {
    for (const p of this.#partial) {
      if (!hash.startsWith(p.hash)) continue;
      const at = p.point.slice(0, hash.length);
      if (hash < at) return "read";
      if (hash === at) return p.lastKey;
    }
    return null;
  }

  /**
   * The tasks expected in the key range strictly between two point cells of one counter cell and
   * one length (b after a): each cell between at the larger of the two's expectation.
   */
  gapBetween(a: CellNode, b: CellNode): number {
    const between = cellsBetween(a.hash, b.hash);
    if (between === 0) return 0;
    const each = Math.max(
      this.#density.expected(a, this.local),
      this.#density.expected(b, this.local),
    );
    return Math.min(a.size >= 0 ? a.size : Infinity, between * each);
  }

  /** True where the tasks expected between a and b cost less than a list (`siblingRuns`). */
  joins(a: CellNode, b: CellNode): boolean {
    return this.gapBetween(a, b) < LIST_ENTRIES;
  }

  /** Room for twice the expected tasks: a cell that overflows is split, which costs a batch. */
  roomOf(cell: CellNode): number {
    const room = this.early.has(cell)
      ? cell.size
      : Math.max(this.#splitAbove, Math.ceil(2 * this.#density.expected(cell, this.local)));
    return cell.size >= 0 ? Math.min(cell.size, room) : room;
  }

  status(cell: CellNode): CellChoice {
    const { hash, size, at } = cell;
    if (cell.cellLayer) return "fetch";
    if (!this.#reaches(cell)) return "read";
    const whole = this.#whole;
    if (whole.some((w) => hash.startsWith(w))) return "read";
    if (this.probedUpTo(hash) === "read") return "read";
    // A counter cell of few tasks is read whole in one list (a probe's tasks read again enter
    // the queue once): split, its finer cells within reach would take a list each.
    if (hash.length === COUNT_PRECISION && size <= this.#splitAbove) return "fetch";
    if (hash.length >= POINT_PRECISION) return "fetch";
    const expected = this.#density.expected({ hash, size, at }, this.local);
    // A cell holding a probe read whole is split where it must be, so as not to read that again.
    const probed = whole.some((w) => w.startsWith(hash));
    // One that fits a list is read whole but where the page reaches only a corner of it: then
    // its finer cells there cost less (once: their own counts are under two lists' worth).
    if (expected <= this.#splitAbove && !probed) {
      const small = expected < 2 * LIST_ENTRIES || at > this.local;
      return small || this.#wholeIsCheaper(cell, expected) ? "fetch" : "split";
    }
    const coarse = expected <= COARSE_FACTOR * this.#splitAbove &&
      this.#wholeIsCheaper(cell, expected);
    return coarse ? "fetch" : "split";
  }

  /**
   * Split, a cell costs a list for each run of its finer cells the page reaches (siblings next to
   * one another are listed as one range), each holding a few tasks at a city's density: read
   * whole, one list and the tasks beyond the reach.
   */
  #wholeIsCheaper({ hash, box }: CellNode, expected: number): boolean {
    const geo = this.#geo;
    let inReach = 0;
    let runs = 0;
    let previous = false;
    for (const fine of childBounds(hash, box)) {
      const reached = roughDistanceToBoxKm(this.#point, fine) <= this.horizon &&
        minDistanceToBoxKm(geo.lon, geo.lat, fine) <= this.horizon;
      if (reached) inReach++;
      if (reached && !previous) runs++;
      previous = reached;
    }
    const split = runs * LIST_ENTRIES + inReach * expected / BASE32.length;
    return expected + LIST_ENTRIES < split;
  }
}

/**
 * How many cells of a's length lie strictly between a and b in key order (b after a, both of one
 * length and one counter cell): the digits past the counter cell's, read as a base-32 number.
 */
function cellsBetween(a: string, b: string): number {
  let n = 0;
  for (let i = COUNT_PRECISION; i < a.length; i++) {
    n = n * BASE32.length + BASE32.indexOf(b[i]) - BASE32.indexOf(a[i]);
  }
  return Math.max(0, n - 1);
}
