/**
 * `deno task bench:explore [--sizes=10000,100000,1000000] [--queries=200] [--fresh]`: GET
 * /tasks/explore at scale. Per size it loads generated tasks through kv/ (cached between runs,
 * see explore_cache.ts), then, each in a fresh process so that peak memory is the phase's own:
 * the route's query function (and the route itself over app.request) on the explore indexes,
 * the same queries answered by a brute-force scan of every task record, and "newest 20 within
 * R km" answered by Redis GEOSEARCH on the same points. Prints markdown tables.
 */
import {
  type ExploreFilterQuery,
  type ExploreFilters,
  exploreFilters,
  matchExplore,
} from "../domain/explore.ts";
import { searchTerms, type TaskRecord } from "../domain/tasks/task.ts";
import { exploreTasks } from "../kv/explore/explore_query.ts";
import { exploreByDistance } from "../kv/explore/nearest/explore_distance.ts";
import { haversineKm } from "../domain/geo/geo.ts";
import { tasks } from "../kv/keyspace.ts";
import { setup } from "../tests/helpers.ts";
import { buildCache, kvPath, peakRss, readManifest } from "./explore_cache.ts";
import { generateTask } from "./explore_data.ts";
import { type QueryKind, queryKinds, queryString } from "./explore_data_queries.ts";
import {
  type BruteResult,
  type KindResult,
  type QueryPhase,
  type RedisPhase,
  type RedisResult,
  type SizeReport,
  sizeReport,
  summary,
  timing,
} from "./explore_bench_report.ts";
import { Redis } from "./resp.ts";
import { withLatency } from "../kv/store/latency.ts";
import { loadAverage, writeResults } from "./results.ts";

const PAGE = 20;
/**
 * Queries of each kind run untimed before it, drawn with another seed: a serving process has
 * compiled its code and run pages of every kind, and the first queries of a fresh process took
 * a few times the later ones (`bench:explore-tails`); other points, so that the timed pages' own
 * entries are not read first.
 */
const WARMUP = 30;
const WARMUP_SEED = 977;
/** Repeats of a kind's first query before the HTTP and reference timings. */
const WARMUP_REPEATS = 10;
/** Queries per kind whose KV round trips are counted. */
const TRIP_QUERIES = 30;

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await f();
  return [value, performance.now() - t0];
}

/** The query kinds measured: all, or those whose name contains --kinds=text. */
function selectedKinds(count: number, seed?: number): QueryKind[] {
  const only = arg("kinds");
  return queryKinds(count, seed).filter((k) => !only || k.name.includes(only));
}

// ---- phases, each run in its own process ----

async function queryPhase(n: number, count: number): Promise<QueryPhase> {
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
  await using svc = await setup({
    kv,
    settings: { ANON_RATE_LIMIT_PER_HOUR: "1000000000", LOG_LEVEL: "silent" },
  });
  const httpCount = Math.min(count, 50);
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

/** The first page the route would answer, in the query's order, with what it read. */
async function firstPage(kv: Deno.Kv, filters: ExploreFilters, sort?: string) {
  if (sort !== "distance") return await exploreTasks(kv, { filters, limit: PAGE });
  const page = await exploreByDistance(kv, { filters, limit: PAGE });
  return {
    items: page.items,
    next: page.next,
    plan: "distance",
    work: page.work,
  };
}

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

async function brutePhase(n: number, count: number): Promise<BruteResult[]> {
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

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** The GEOSEARCH arguments of a query's circle. */
function circleOf(q: ExploreFilterQuery): (string | number)[] {
  return ["FROMLONLAT", q.longitude!, q.latitude!, "BYRADIUS", q.radiusKm!, "km"];
}

async function redisPhase(n: number, count: number): Promise<RedisPhase> {
  const port = freePort();
  const server = new Deno.Command("redis-server", {
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    let redis: Redis | null = null;
    for (let attempt = 0; attempt < 100 && !redis; attempt++) {
      redis = await Redis.connect(port).catch(() => null);
      if (!redis) await new Promise((r) => setTimeout(r, 50));
    }
    if (!redis) throw new Error("redis-server did not start");
    // City-type points, member = order key, so members sort by creation time (newest last).
    const started = performance.now();
    let points = 0;
    let batch: (string | number)[] = ["GEOADD", "tasks"];
    const pending: (string | number)[][] = [];
    for (let i = 0; i < n; i++) {
      const t = generateTask(i, n);
      if (t.location.type !== "city") continue;
      const [lon, lat] = t.location.coordinates;
      if (Math.abs(lat) > 85.05) continue;
      batch.push(lon, lat, t.orderKey);
      points++;
      if (batch.length >= 2 + 3 * 1000) {
        pending.push(batch);
        batch = ["GEOADD", "tasks"];
        if (pending.length === 20) await redis.pipeline(pending.splice(0));
      }
    }
    if (batch.length > 2) pending.push(batch);
    await redis.pipeline(pending);
    const loadSeconds = (performance.now() - started) / 1000;
    const info = String(await redis.command("INFO", "memory"));
    const usedMemoryBytes = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
    const kinds: RedisResult[] = [];
    for (
      const kind of queryKinds(count).filter((k) =>
        k.name.startsWith("geo") && !k.name.includes("search")
      )
    ) {
      const within: number[] = [];
      const nearest: number[] = [];
      for (let k = -WARMUP_REPEATS; k < kind.queries.length; k++) {
        const q = kind.queries[Math.max(0, k)];
        const [, t1] = await timed(async () => {
          const reply = await redis.command("GEOSEARCH", "tasks", ...circleOf(q)) as string[];
          // GEOSEARCH orders by distance only: the newest 20 need every member, sorted here.
          return reply.sort().slice(-PAGE).reverse();
        });
        const [, t2] = await timed(() =>
          redis.command("GEOSEARCH", "tasks", ...circleOf(q), "ASC", "COUNT", PAGE)
        );
        if (k < 0) continue;
        within.push(t1);
        nearest.push(t2);
      }
      kinds.push({ name: kind.name, within: timing(within), nearest: timing(nearest), members: 0 });
    }
    // Members inside each circle, counted once per kind outside the timed loop.
    for (const r of kinds) {
      const kind = queryKinds(count).find((k) => k.name === r.name)!;
      let total = 0;
      for (const q of kind.queries.slice(0, 20)) {
        total += Number(
          await redis.command("GEOSEARCHSTORE", "tmp", "tasks", ...circleOf(q)),
        );
      }
      r.members = total / Math.min(20, kind.queries.length);
    }
    redis.close();
    return { points, loadSeconds, usedMemoryBytes, kinds };
  } finally {
    server.kill("SIGTERM");
    await server.status;
  }
}

// ---- the orchestrator ----

const FLAGS = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-net=127.0.0.1",
  "--allow-sys",
];

/** Runs a phase of this file in a fresh process and returns what it printed last, as JSON. */
async function child<T>(...args: string[]): Promise<T> {
  const kinds = arg("kinds");
  if (kinds) args.push(`--kinds=${kinds}`);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...FLAGS, import.meta.filename!, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) throw new Error(`phase ${args.join(" ")} failed:\n${text}`);
  return JSON.parse(text.split("\n").at(-1)!) as T;
}

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

async function fileBytes(path: string): Promise<number> {
  let total = 0;
  for (const suffix of ["", "-wal"]) {
    total += await Deno.stat(path + suffix).then((s) => s.size).catch(() => 0);
  }
  return total;
}

async function main() {
  const phase = arg("phase");
  const n = Number(arg("n") ?? 0);
  const count = Number(arg("queries") ?? 200);
  if (phase === "query") return console.log(JSON.stringify(await queryPhase(n, count)));
  if (phase === "brute") return console.log(JSON.stringify(await brutePhase(n, count)));
  if (phase === "redis") return console.log(JSON.stringify(await redisPhase(n, count)));

  const sizes = (arg("sizes") ?? "10000,100000,1000000").split(",").map(Number);
  const bruteMax = Number(arg("brute-max") ?? 100_000);
  const fresh = Deno.args.includes("--fresh");
  const redisMin = Number(arg("redis-min") ?? 0);
  const reports: SizeReport[] = [];
  for (const size of sizes) {
    let manifest = fresh ? null : await readManifest(size);
    if (!manifest) {
      console.error(`loading ${size} tasks into ${kvPath(size)} ...`);
      manifest = await buildCache(size, console.error);
    }
    console.error(`${size}: querying (load average ${loadAverage()}) ...`);
    const query = await child<QueryPhase>(`--phase=query`, `--n=${size}`, `--queries=${count}`);
    let brute: BruteResult[] | null = null;
    if (size <= bruteMax) {
      // A scan reads every record: fewer queries, or the run takes hours.
      const bruteCount = Math.max(5, Math.min(count, Math.round(30 * 10_000 / size)));
      console.error(`${size}: brute force, ${bruteCount} queries per kind ...`);
      brute = await child<BruteResult[]>(`--phase=brute`, `--n=${size}`, `--queries=${bruteCount}`);
    }
    let redis: RedisPhase | null = null;
    if (size >= redisMin) {
      console.error(`${size}: Redis GEOSEARCH ...`);
      redis = await child<RedisPhase>(`--phase=redis`, `--n=${size}`, `--queries=${count}`);
    }
    const report = {
      n: size,
      manifest,
      fileBytes: await fileBytes(kvPath(size)),
      query,
      brute,
      redis,
    };
    reports.push(report);
    console.log(sizeReport(report));
  }
  console.log(summary(reports));
  const file = await writeResults({
    name: "explore",
    command: `deno task bench:explore ${Deno.args.join(" ")}`.trim(),
    comparedWith: "a brute-force scan of every task record (matchExplore, each page checked " +
      "against it) and Redis GEOSEARCH over the same city points, in the same run",
    body: [...reports.map(sizeReport), summary(reports)].join("\n"),
  });
  console.log(`\nwritten to ${file}`);
}

if (import.meta.main) await main();
