/**
 * Explore nearest first (sort=distance): a best-first walk over geohash cells of every layer,
 * read from the point entries (one per geo-placed task, listed by key range at any precision).
 * Cells wait in one queue with tasks, a cell under the least distance any of its points can have
 * from the query point, so a task leaves the queue only once no unread cell can hold a nearer
 * one: pages come out in exact (distance, newest first) order. A crowded cell is split into its
 * 32 finer cells instead of read, so a walk goes as deep as the density around the point needs;
 * a cursor skips the cells wholly nearer than where the previous page ended.
 */
import { type ExploreItem, roundKm } from "../../../domain/explore.ts";
import { BASE32, childBounds, geohashBounds } from "../../../domain/geo/geohash.ts";
import { coverCircle } from "../../../domain/geo/geohash_cover.ts";
import {
  type GeoBox,
  minDistanceToBoxKm,
  roughDistanceToBoxKm,
  roughFrom,
} from "../../../domain/geo/geo.ts";
import {
  COUNT_PRECISION,
  GEO_LAYERS,
  type GeoLayer,
  type PackedCard,
  packedSpotsLeft,
  packedUserId,
  POINT_PRECISION,
  unpackExploreItem,
} from "../index/explore_index.ts";
import { packedFacet } from "../index/explore_packed_facet.ts";
import { DEFAULT_BUDGET } from "../explore_query.ts";
import { countId, Density } from "./explore_plan_distance.ts";
import { probeRemembered } from "./explore_probes.ts";
import { planMemory } from "../plan/explore_plan_memory.ts";
import { facetMatch } from "../scan/explore_scan.ts";
import { explore } from "../../keyspace.ts";
import { pendingPurges } from "../../users/users.ts";
import { type CellNode, type Node, Queue } from "./explore_distance_queue.ts";
import {
  type DistanceWork,
  type Found,
  readCounts,
  siblingRuns,
  withWords,
} from "./explore_distance_reads.ts";

import {
  COARSE_FACTOR,
  type DistancePage,
  type DistancePosition,
  type DistanceQuery,
  farBoundKm,
  FRONTIER_KEY,
  isAfter,
  LIST_ENTRIES,
  MAX_BATCH_LISTS,
  MAX_LIST,
  SPARSE_REACH_KM,
  SPLIT_ABOVE,
  unitsOf,
  WHOLE_CELL_FACTOR,
  WHOLE_CELLS_ENTRIES,
} from "./explore_distance_page.ts";

/**
 * One page of a geo query's matches, nearest first (ties newest first), strictly after `after`.
 * Every filter applies as in the newest-first scan (facet, spots, search words, purges). Like
 * that scan, a page stops after a fixed amount of storage work: it may then hold fewer than
 * `limit` items and still have a next position.
 *
 * Reads go in batches, each a set of lists in parallel (on Deno Deploy, one round trip): first
 * the counters, the purges and the probes of the point's own cells (`explore_plan_distance.ts`);
 * then every cell nearer than where the page is expected to end, split to the precision its
 * expected density fits; then, only if the page is not yet settled, every cell nearer than its
 * last needed match.
 */
export async function exploreByDistance(
  kv: Deno.Kv,
  query: DistanceQuery,
): Promise<DistancePage> {
  const { filters, limit } = query;
  const after = query.after ?? null;
  const splitAbove = query.splitAbove ?? SPLIT_ABOVE;
  const wholeCell = WHOLE_CELL_FACTOR * splitAbove;
  const budget = query.budget ?? DEFAULT_BUDGET;
  const geo = filters.geo;
  if (!geo) throw new Error("sort=distance needs a geo query");
  const work: DistanceWork = { lists: 0, entries: 0, docs: 0 };
  const queue = new Queue();

  const point = roughFrom(geo);
  // False for a cell that cannot hold a match after the page's start.
  const reaches = (layer: GeoLayer, near: number, box: GeoBox) =>
    near <= geo.radiusKm + layer.maxRadiusKm && !(after && farBoundKm(near, box) < after.d);
  const pushCell = (layer: GeoLayer, hash: string, size: number): CellNode | null => {
    const box = geohashBounds(hash);
    const near = minDistanceToBoxKm(geo.lon, geo.lat, box);
    if (!reaches(layer, near, box)) return null;
    const node: CellNode = { cell: true, at: near, layer, hash, size, box, exact: true };
    queue.push(node);
    return node;
  };
  // A split cell's finer cells wait by their rough bound: most are never reached, and the exact
  // one (trigonometry) is computed by `refine` for those that are.
  const split = (node: CellNode) => {
    const boxes = childBounds(node.hash, node.box);
    for (let i = 0; i < boxes.length; i++) {
      const box = boxes[i];
      const at = roughDistanceToBoxKm(point, box);
      if (at > geo.radiusKm + node.layer.maxRadiusKm) continue;
      const { layer, size } = node;
      queue.push({ cell: true, at, layer, hash: node.hash + BASE32[i], size, box, exact: false });
    }
  };
  /** A cell out of the queue by its rough bound goes back by its exact one, if still in reach. */
  const refine = (node: CellNode) => {
    node.at = minDistanceToBoxKm(geo.lon, geo.lat, node.box);
    node.exact = true;
    if (reaches(node.layer, node.at, node.box)) queue.push(node);
  };

  const seeds = GEO_LAYERS.flatMap((layer) =>
    coverCircle(geo, {
      maxCells: 1024,
      precisions: [COUNT_PRECISION],
      extraKm: layer.maxRadiusKm,
    }).cells.map((hash) => ({ layer, hash }))
  );
  const [hidden, sizes, { probes, counts: probed }] = await Promise.all([
    pendingPurges(kv),
    readCounts(kv, seeds.map((s) => explore.count("cell", s.layer.name, s.hash))),
    probeRemembered(kv, planMemory(kv), geo, { limit: splitAbove }),
  ]);
  work.lists += probes.length;
  const counts = new Map<string, number>();
  const seeded: CellNode[] = [];
  seeds.forEach((s, i) => {
    counts.set(countId(s.layer, s.hash), sizes[i]);
    const node = sizes[i] > 0 ? pushCell(s.layer, s.hash, sizes[i]) : null;
    if (node) seeded.push(node);
  });
  const density = new Density(geo, probed, counts);

  // A task can be listed twice (a probe's cell read again, a cell read again after it
  // overflowed): it enters the queue once.
  const seen = new Set<string>();
  const keep = ({ key, packed }: Found) => {
    if (seen.has(key)) return null;
    const d = facetMatch(packedFacet(packed), filters);
    if (d === null || !isAfter(d, key, after) || hidden.has(packedUserId(packed))) return null;
    if (filters.hasSpots && packedSpotsLeft(packed) === 0) return null;
    return d;
  };
  const take = async (found: Found[]) => {
    const passing: (Found & { d: number | null })[] = [];
    for (const f of found) {
      const d = keep(f);
      if (d !== null) passing.push({ ...f, d });
    }
    // With a search, the documents (read fresh, while other cells' tasks may enter the queue)
    // are checked again in full; without, the check above stands but for a task seen meanwhile.
    const kept = filters.search.length > 0
      ? (await withWords(kv, passing, filters.search, work)).map((f) => ({ ...f, d: keep(f) }))
      : passing;
    for (const { key, packed, d } of kept) {
      if (d === null || seen.has(key)) continue;
      seen.add(key);
      queue.push({ cell: false, at: d, key, packed });
    }
  };

  // The city layer's cells read whole by the probes: inside one, nothing is left to read.
  const whole = probes.filter((p) => p.whole).map((p) => p.hash);
  // A probe that overflowed read its cell in key order up to its last entry: a city cell inside
  // it that ends before that entry's point is read, one that holds it is read on from there.
  const partial = probes.flatMap((p) =>
    p.lastKey ? [{ hash: p.hash, lastKey: p.lastKey, point: p.lastKey.at(-2) as string }] : []
  );
  const probedUpTo = (hash: string): "read" | Deno.KvKey | null => {
    for (const p of partial) {
      if (!hash.startsWith(p.hash)) continue;
      const at = p.point.slice(0, hash.length);
      if (hash < at) return "read";
      if (hash === at) return p.lastKey;
    }
    return null;
  };
  for (const probe of probes) work.entries += probe.entries.length;
  await Promise.all(probes.map((p) => take(p.entries)));
  const cityLayer = GEO_LAYERS[0];
  // The density measured around the point holds as far again as a first page is expected to
  // reach; a later page far out reads by the counters, as a ring of cells at a city's density
  // would take thousands of lists.
  const local = 2 * density.reach(0, limit + 1);
  const from = after?.d ?? 0;
  const status = (cell: CellNode) => {
    const { layer, hash, size, at } = cell;
    if (layer === cityLayer && whole.some((w) => hash.startsWith(w))) return "read";
    if (layer === cityLayer && probedUpTo(hash) === "read") return "read";
    // A counter cell of few tasks is read whole in one list (a probe's tasks read again enter
    // the queue once): split, its finer cells within reach would take a list each.
    if (hash.length === COUNT_PRECISION && size <= splitAbove) return "fetch";
    if (hash.length >= POINT_PRECISION) return "fetch";
    const expected = density.expected({ layer, hash, size, at }, local);
    // A cell holding a probe read whole is split where it must be, so as not to read that again.
    const probed = layer === cityLayer && whole.some((w) => w.startsWith(hash));
    // One that fits a list is read whole but where the page reaches only a corner of it: then
    // its finer cells there cost less (once: their own counts are under two lists' worth).
    if (expected <= splitAbove && !probed) {
      const small = expected < 2 * LIST_ENTRIES || at > local;
      return small || wholeIsCheaper(cell, expected) ? "fetch" : "split";
    }
    const coarse = expected <= COARSE_FACTOR * splitAbove && wholeIsCheaper(cell, expected);
    return coarse ? "fetch" : "split";
  };
  // Split, a cell costs a list for each run of its finer cells the page reaches (siblings next to
  // one another are listed as one range), each holding a few tasks at a city's density: read
  // whole, one list and the tasks beyond the reach.
  const wholeIsCheaper = ({ hash, box }: CellNode, expected: number) => {
    let inReach = 0;
    let runs = 0;
    let previous = false;
    for (const fine of childBounds(hash, box)) {
      const reached = roughDistanceToBoxKm(point, fine) <= horizon &&
        minDistanceToBoxKm(geo.lon, geo.lat, fine) <= horizon;
      if (reached) inReach++;
      if (reached && !previous) runs++;
      previous = reached;
    }
    const split = runs * LIST_ENTRIES + inReach * expected / BASE32.length;
    return expected + LIST_ENTRIES < split;
  };
  // How far the page is expected to read: the first batch's reach, then each batch's bound.
  let horizon = density.reach(from, limit + 1);
  // Where a page reaches far (a sparse area), the first batch reads the small counter cells
  // whole whatever their distance; read, they are skipped when the walk reaches them.
  const early = new Set<CellNode>();
  if (density.reach(from, limit + 1) > SPARSE_REACH_KM) {
    let entries = 0;
    for (const cell of seeded.sort((a, b) => a.at - b.at)) {
      if (cell.size > wholeCell || status(cell) === "read") continue;
      if (entries + cell.size > WHOLE_CELLS_ENTRIES) break;
      early.add(cell);
      entries += cell.size;
    }
  }

  // Lists a run of sibling cells (consecutive in key order: one key range) as one: a city's
  // fine cells around the point hold a few tasks each, and a list costs as much as ten entries.
  const fetch = async (run: CellNode[]) => {
    const { layer, hash } = run[0];
    const splittable = hash.length < POINT_PRECISION;
    // Room for twice the expected tasks: a cell that overflows is split, which costs a batch.
    const roomOf = (cell: CellNode) => {
      const room = early.has(cell)
        ? cell.size
        : Math.max(splitAbove, Math.ceil(2 * density.expected(cell, local)));
      return cell.size >= 0 ? Math.min(cell.size, room) : room;
    };
    const probe = splittable
      ? Math.min(MAX_LIST, run.reduce((sum, cell) => sum + roomOf(cell), 0) + 1)
      : undefined;
    const found: Found[] = [];
    let point = "";
    work.lists++;
    const from = layer === cityLayer ? probedUpTo(hash) : null;
    const range = {
      // Strictly after the probe's last entry: a key sorts before any longer key it starts.
      start: from && from !== "read" ? [...from, ""] : explore.byPointRange(layer.name, hash).start,
      end: explore.byPointRange(layer.name, run[run.length - 1].hash).end,
    };
    const entries = kv.list<PackedCard>(range, { limit: probe, batchSize: probe ?? MAX_LIST });
    for await (const entry of entries) {
      work.entries++;
      found.push({ key: entry.key.at(-1) as string, packed: entry.value });
      point = entry.key.at(-2) as string;
    }
    await take(found);
    if (probe === undefined || found.length < probe) return;
    // Overflowed: the entries came in key order, so the cells and finer cells before the last
    // one's were read whole; the rest are read again (their tasks read so far enter the queue once).
    for (const cell of run) {
      if (point.startsWith(cell.hash)) {
        const reached = point.slice(0, cell.hash.length + 1);
        for (const c of BASE32) {
          if (cell.hash + c >= reached) pushCell(layer, cell.hash + c, cell.size);
        }
      } else if (cell.hash > point) pushCell(layer, cell.hash, cell.size);
    }
  };

  const items: ExploreItem[] = [];
  let last: DistancePosition | null = null;
  let reach = -1;
  /** Cells listed, or going to be in the batch being formed. */
  const read = new Set<CellNode>();
  for (let node = queue.pop(); node; node = queue.pop()) {
    if (node.cell && !node.exact) {
      refine(node);
      continue;
    }
    if (!node.cell) {
      // The page's limit + 1st item proves that another page follows.
      if (items.length === limit) return { items, next: last, work };
      const item: ExploreItem = unpackExploreItem(node.packed);
      item.distanceKm = roundKm(node.at);
      items.push(item);
      last = { d: node.at, key: node.key };
      continue;
    }
    const what = early.has(node) ? "fetch" : status(node);
    if (what === "read" || read.has(node)) continue;
    if (what === "split") {
      split(node);
      continue;
    }
    // Out of budget: end the page at this cell's distance, once the page has moved on (an
    // item, or a frontier past the previous page's end), so that paging always progresses.
    // Every task nearer than the cell has been emitted (it is the queue's least), and none
    // emitted lies at its distance (a task leaves only when every cell is farther).
    const moved = items.length > 0 || !after || node.at > after.d;
    if (moved && unitsOf(work) >= budget) {
      return { items, next: { d: node.at, key: FRONTIER_KEY }, work };
    }
    // The batch: every cell within the density's reach (growing batch after batch), and no
    // farther than the match the page still needs last, when the queue holds that many. Not
    // that match's distance alone: the probes' tasks are the first in key order of cells up to
    // 39 km wide, and the page's last match among them lay several times past the reach (a
    // dense page read cells 2.4 km out for matches within 0.6 km).
    const wanted = limit + 1 - items.length;
    const bound = queue.itemDistance(wanted);
    reach = reach < 0
      ? density.reach(from, wanted)
      : Math.max(density.reach(node.at, Math.max(1, wanted - queue.items)), 2 * reach);
    const until = Math.min(bound, reach);
    horizon = until;
    const batch: CellNode[] = [node];
    // The first batch: the small counter cells go with it, whatever their distance.
    if (read.size === 0) {
      for (const cell of early) if (cell !== node) batch.push(cell);
    }
    for (const cell of batch) read.add(cell);
    const held: Node[] = [];
    while (batch.length < MAX_BATCH_LISTS) {
      const top = queue.peek();
      if (!top) break;
      if (!top.cell) {
        held.push(queue.pop()!);
        continue;
      }
      if (top.at > until) break;
      queue.pop();
      if (!top.exact) {
        refine(top);
        continue;
      }
      if (read.has(top)) continue;
      const next = early.has(top) ? "fetch" : status(top);
      if (next === "split") split(top);
      else if (next === "fetch") {
        batch.push(top);
        read.add(top);
      }
    }
    await Promise.all(siblingRuns(batch, early).map(fetch));
    for (const h of held) queue.push(h);
  }
  return { items, next: null, work };
}
