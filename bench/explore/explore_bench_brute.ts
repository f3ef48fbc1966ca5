/**
 * The explore benchmark's reference phase: the same queries answered by a scan of every task
 * record with the brute-force matcher, each index page checked against it.
 */
import { type ExploreFilters, exploreFilters, matchExplore } from "../../domain/explore.ts";
import { haversineKm } from "../../domain/geo/geo.ts";
import { searchTerms, type TaskRecord } from "../../domain/tasks/task.ts";
import { tasks } from "../../kv/keyspace.ts";
import { selectedKinds } from "./explore_bench_args.ts";
import { firstPage, PAGE, timed } from "./explore_bench_page.ts";
import { type BruteResult, timing } from "./explore_bench_report.ts";
import { kvPath } from "./explore_cache.ts";

/** The nearest `limit` matches (ties newest first) of a full scan of the task records. */
async function bruteNearest(
  kv: Deno.Kv,
  filters: ExploreFilters,
  limit: number,
): Promise<string[]> {
  const geo = filters.geo!;
  const found: { d: number; key: string; id: string }[] = [];
  for await (
    const entry of kv.list<TaskRecord>({ prefix: tasks.recordPrefix() }, { batchSize: 1000 })
  ) {
    const task = entry.value;
    const terms = filters.search.length > 0 ? searchTerms(task) : [];
    if (!matchExplore(task, terms, filters)) continue;
    const [lon, lat] = task.location.coordinates;
    found.push({ d: haversineKm(geo, { lon, lat }), key: task.orderKey, id: task.id });
  }
  found.sort((a, b) => a.d - b.d || (a.key < b.key ? 1 : -1));
  return found.slice(0, limit).map((f) => f.id);
}

/** The newest `limit` matches of a full scan of the task records, by the reference matcher. */
async function bruteForce(
  kv: Deno.Kv,
  filters: ExploreFilters,
  limit: number,
): Promise<string[]> {
  const best: TaskRecord[] = [];
  for await (
    const entry of kv.list<TaskRecord>({ prefix: tasks.recordPrefix() }, { batchSize: 1000 })
  ) {
    const task = entry.value;
    if (best.length === limit && task.orderKey <= best[limit - 1].orderKey) continue;
    // Words are only worth normalizing when the query searches.
    const terms = filters.search.length > 0 ? searchTerms(task) : [];
    if (!matchExplore(task, terms, filters)) continue;
    let at = best.length;
    while (at > 0 && best[at - 1].orderKey < task.orderKey) at--;
    best.splice(at, 0, task);
    if (best.length > limit) best.pop();
  }
  return best.map((t) => t.id);
}

export async function brutePhase(n: number, count: number): Promise<BruteResult[]> {
  const kv = await Deno.openKv(kvPath(n));
  const results: BruteResult[] = [];
  for (const kind of selectedKinds(count)) {
    const ms: number[] = [];
    let agree = 0;
    let compared = 0;
    for (const query of kind.queries) {
      const filters = exploreFilters(query);
      const [ids, t] = await timed(() =>
        query.sort === "distance" ? bruteNearest(kv, filters, PAGE) : bruteForce(kv, filters, PAGE)
      );
      ms.push(t);
      // The index's answer must be the reference's, unless its page was cut short.
      const page = await firstPage(kv, filters, query.sort);
      if (page.items.length === PAGE || page.next === null) {
        compared++;
        if (JSON.stringify(page.items.map((i) => i.id)) === JSON.stringify(ids)) agree++;
      }
    }
    results.push({ name: kind.name, brute: timing(ms), agree, compared });
  }
  kv.close();
  return results;
}
