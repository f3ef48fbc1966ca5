/**
 * Explore nearest first (sort=distance): a best-first walk over geohash cells, read from the
 * point entries (one per geo-placed task, every class in one key space, listed by key range at
 * any precision), each cell's list holding its tasks of every class.
 * Cells wait in one queue with tasks, a cell under the least distance any of its points can have
 * from the query point, so a task leaves the queue only once no unread cell can hold a nearer
 * one: pages come out in exact (distance, newest first) order. A crowded cell is split into its
 * 32 finer cells instead of read, so a walk goes as deep as the density around the point needs;
 * a cursor skips the cells wholly nearer than where the previous page ended.
 */
import { type ExploreItem, roundKm } from "../../../domain/explore.ts";
import { coverCircle } from "../../../domain/geo/geohash_cover.ts";
import { COUNT_PRECISION, GEO_LAYERS } from "../index/entries.ts";
import { unpackExploreItem } from "../index/card.ts";
import { DEFAULT_BUDGET } from "../newest_page.ts";
import { countId, Density } from "../shared/density.ts";
import { probeRemembered } from "../shared/probes.ts";
import { planMemory } from "../shared/plan_memory.ts";
import { explore } from "../../keyspace.ts";
import { pendingPurges } from "../../users/users.ts";
import type { CellNode, Node } from "./queue.ts";
import { type NearestWork, readCounts, siblingRuns } from "./reads.ts";
import { CellChoices } from "./cells.ts";
import { chooseDiscs, discCovers, mayReachFar } from "./discs.ts";
import { NearestWalk } from "./walk.ts";
import {
  FRONTIER_KEY,
  MAX_BATCH_LISTS,
  type NearestPage,
  type NearestPosition,
  type NearestQuery,
  SPLIT_ABOVE,
  unitsOf,
} from "./page_bounds.ts";

/**
 * One page of a geo query's matches, nearest first (ties newest first), strictly after `after`.
 * Every filter applies as in the newest-first scan (facet, spots, search words, purges). Like
 * that scan, a page stops after a fixed amount of storage work: it may then hold fewer than
 * `limit` items and still have a next position.
 *
 * Reads go in batches, each a set of lists in parallel (on Deno Deploy, one round trip): first
 * the counters, the purges and the probes of the point's own cells (`shared/density.ts`);
 * then every cell nearer than where the page is expected to end, split to the precision its
 * expected density fits (a page that reaches far may take a disc class from its disc cells over
 * the circle instead, `discs.ts`); then, only if the page is not yet settled,
 * every cell nearer than its last needed match.
 */
export async function exploreNearest(
  kv: Deno.Kv,
  query: NearestQuery,
): Promise<NearestPage> {
  const { filters, limit } = query;
  const after = query.after ?? null;
  const splitAbove = query.splitAbove ?? SPLIT_ABOVE;
  const budget = query.budget ?? DEFAULT_BUDGET;
  const geo = filters.geo;
  if (!geo) throw new Error("sort=distance needs a geo query");
  const work: NearestWork = { lists: 0, entries: 0, docs: 0 };

  const seeds = GEO_LAYERS.flatMap((layer) =>
    coverCircle(geo, {
      maxCells: 1024,
      precisions: [COUNT_PRECISION],
      extraKm: layer.maxRadiusKm,
    }).cells.map((hash) => ({ layer, hash }))
  );
  const memory = planMemory(kv);
  const far = mayReachFar(memory, geo, { from: after?.d ?? 0, limit });
  const discs = far ? discCovers(geo) : { covers: [], keys: [] };
  const [hidden, counted, { probes, counts: probed }] = await Promise.all([
    pendingPurges(kv),
    readCounts(kv, [
      ...seeds.map((s) => explore.count("cell", s.layer.name, s.hash)),
      ...discs.keys,
    ]),
    probeRemembered(kv, memory, geo, { limit: splitAbove }),
  ]);
  const discCounts = counted.slice(seeds.length);
  work.lists += probes.length;
  const walk = new NearestWalk(kv, { filters, after, hidden, work });
  const { queue } = walk;
  // A counter cell's point cells hold its tasks of every class: its size is their sum over the
  // classes whose reach covers it (another class's tasks there cannot match, and an overflowing
  // list is split like any other).
  const counts = new Map<string, number>();
  const sizes = new Map<string, number>();
  const classes = seeds.map((s, i) => ({ ...s, count: counted[i] }));
  for (const { layer, hash, count } of classes) {
    counts.set(countId(layer, hash), count);
    sizes.set(hash, (sizes.get(hash) ?? 0) + count);
  }
  walk.narrow(classes);
  const seeded: CellNode[] = [];
  for (const [hash, size] of sizes) {
    const node = size > 0 ? walk.pushCell(hash, size) : null;
    if (node) seeded.push(node);
  }
  const density = new Density(geo, probed, counts);

  for (const probe of probes) work.entries += probe.entries.length;
  await Promise.all(probes.map((p) => walk.take(p.entries)));
  const from = after?.d ?? 0;
  const reaches = (cell: CellNode) => walk.reaches(cell);
  const cells = new CellChoices({ geo, density, probes, limit, splitAbove, from, reaches });
  cells.chooseEarly(seeded, from, limit);
  if (cells.far) {
    const { classes: byDisc, reads } = chooseDiscs(discs.covers, discCounts);
    for (const layer of byDisc) cells.byDisc.add(layer);
    for (const read of reads) walk.pushDisc(read);
    walk.narrow(classes.filter((c) => !cells.byDisc.has(c.layer)));
    cells.walking(GEO_LAYERS.filter((layer) => !cells.byDisc.has(layer)));
    for (const cell of cells.early) if (!walk.reaches(cell)) cells.early.delete(cell);
  }

  const items: ExploreItem[] = [];
  let last: NearestPosition | null = null;
  let reach = -1;
  /** Cells listed, or going to be in the batch being formed. */
  const read = new Set<CellNode>();
  for (let node = queue.pop(); node; node = queue.pop()) {
    if (node.cell && !node.exact) {
      walk.refine(node);
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
    const what = cells.choose(node);
    if (what === "read" || read.has(node)) continue;
    if (what === "split") {
      walk.split(node);
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
    cells.horizon = until;
    const batch: CellNode[] = [node];
    // The first batch: the small counter cells go with it, whatever their distance.
    if (read.size === 0) {
      for (const cell of cells.early) if (cell !== node) batch.push(cell);
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
        walk.refine(top);
        continue;
      }
      if (read.has(top)) continue;
      const next = cells.choose(top);
      if (next === "split") walk.split(top);
      else if (next === "fetch") {
        batch.push(top);
        read.add(top);
      }
    }
    await Promise.all(siblingRuns(batch, cells).map((run) => walk.fetch(run, cells)));
    for (const h of held) queue.push(h);
  }
  return { items, next: null, work };
}
