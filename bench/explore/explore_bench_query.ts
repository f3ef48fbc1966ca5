/**
 * The explore benchmark's query phase, in a process of its own so that its peak memory is its own:
 * each kind timed at the route's query function and through the route, and its KV round trips.
 */
import { exploreFilters } from "../../domain/explore.ts";
import { withLatency } from "../../kv/store/latency.ts";
import { benchService } from "../lib/service.ts";
import { selectedKinds } from "./explore_bench_args.ts";
import { firstPage, PAGE, timed, WARMUP_REPEATS } from "./explore_bench_page.ts";
import { type KindResult, type QueryPhase, timing } from "./explore_bench_report.ts";
import { kvPath, peakRss } from "./explore_cache.ts";
import { queryString } from "../datasets/explore_data_queries.ts";
import { loadAverage } from "../lib/results.ts";

/**
 * Queries of each kind run untimed before it, drawn with another seed: a serving process has
 * compiled its code and run pages of every kind, and the first queries of a fresh process took
 * a few times the later ones (`bench:explore-tails`); other points, so that the timed pages' own
 * entries are not read first.
 */
const WARMUP = 30;
const WARMUP_SEED = 977;
/** Queries per kind whose KV round trips are counted. */
const TRIP_QUERIES = 30;

export async function queryPhase(n: number, count: number): Promise<QueryPhase> {
  const kv = await Deno.openKv(kvPath(n));
  // Counts the calls a page waits for in sequence; no delay, since the count depends on which
  // calls wait for which, not on how long each takes.
  const counted = withLatency(kv, 0);
  const results: KindResult[] = [];
  const warmups = selectedKinds(WARMUP, WARMUP_SEED);
  for (const [i, kind] of selectedKinds(count).entries()) {
    for (const query of warmups[i].queries) {
      await firstPage(kv, exploreFilters(query), query.sort);
    }
    const ms: number[] = [];
    let items = 0;
    let short = 0;
    let entries = 0;
    let docs = 0;
    const plans = new Map<string, number>();
    for (const query of kind.queries) {
      const filters = exploreFilters(query);
      const [page, t] = await timed(() => firstPage(kv, filters, query.sort));
      ms.push(t);
      items += page.items.length;
      if (page.items.length < PAGE && page.next !== null) short++;
      entries += page.work.entries;
      docs += page.work.docs;
      plans.set(page.plan, (plans.get(page.plan) ?? 0) + 1);
    }
    const q = kind.queries.length;
    const trips: number[] = [];
    for (const query of kind.queries.slice(0, TRIP_QUERIES)) {
      const filters = exploreFilters(query);
      const { trips: t } = await counted.traced(() => firstPage(counted.kv, filters, query.sort));
      trips.push(t.sequential);
    }
    results.push({
      name: kind.name,
      index: timing(ms),
      http: { p50: 0, p99: 0, count: 0 },
      items: items / q,
      short,
      plans: [...plans].map(([p, c]) => (plans.size > 1 ? `${p} ${c}` : p)).join(", "),
      entries: entries / q,
      docs: docs / q,
      trips: timing(trips).p50,
    });
  }
  // The same queries through the route: validation, cursor, JSON, middleware (log, rate limit).
  await using svc = await benchService({
    kv,
    settings: { ANON_RATE_LIMIT_PER_HOUR: "1000000000", LOG_LEVEL: "silent" },
  });
  // As many as in process: a p50 of 50 pages varied run to run by a third at 20k, which made the
  // 2k-to-20k growth of the HTTP p50 a ratio of two noisy figures.
  const httpCount = count;
  for (const [i, kind] of selectedKinds(httpCount).entries()) {
    const ms: number[] = [];
    for (let k = -WARMUP_REPEATS; k < kind.queries.length; k++) {
      const url = `/v1/tasks/explore?limit=${PAGE}&${queryString(kind.queries[Math.max(0, k)])}`;
      const [status, t] = await timed(async () => {
        const res = await svc.request(url);
        await res.arrayBuffer();
        return res.status;
      });
      if (status !== 200) throw new Error(`${url} answered ${status}`);
      if (k >= 0) ms.push(t);
    }
    results[i].http = timing(ms);
  }
  kv.close();
  return { kinds: results, peakBytes: await peakRss(), loadAverage: loadAverage() };
}
