/**
 * `deno task bench:explore-reads [--tasks=20000] [--queries=100]`: what one explore page reads, per
 * filter kind (the kinds bench:explore-cpu times): KV calls (a list batch, a getMany, a get) and
 * entries (listed, or keys asked for), in process on a warm store handle. Load-independent, unlike
 * the CPU figures, which they explain: each call and each entry read has a fixed CPU cost.
 */
import { exploreTasks } from "../../kv/explore/newest_page.ts";
import { exploreNearest } from "../../kv/explore/nearest/nearest_page.ts";
import { exploreFilters } from "../../domain/explore.ts";
import { buildCache, kvPath, readManifest } from "./explore_cache.ts";
import { queryKinds } from "../datasets/explore_data_queries.ts";
import { countReads, type ReadCounts } from "../lib/kv_counter.ts";
import { withLatency } from "../../kv/store/latency.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";
import { numberFlag as flag } from "../lib/flags.ts";
import { cpuUsage } from "node:process";

const PAGE = 20;
const TRIPS_QUERIES = 30;

/** The kinds bench:explore-cpu measures. */
export function cpuKinds(count: number) {
  return queryKinds(count).filter((kind) => !/500 km|region viewport|antimeridian/.test(kind.name));
}

export interface KindReads {
  name: string;
  calls: number;
  entries: number;
  lists: number;
  getManys: number;
  items: number;
  /** In-process time a page, ms (noisy on a loaded machine; the counts are the figures). */
  ms: number;
  /** Median KV round trips a page waits for in sequence (its first `TRIPS_QUERIES` queries). */
  trips: number;
  /** The process's CPU a page (user + system, KV's threads included), µs: noisy too. */
  cpuUs: number;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** Every kind's queries run once to warm the handle's plan memory, then counted. */
export async function measureReads(kv: Deno.Kv, count: number): Promise<KindReads[]> {
  const counting = countReads(kv);
  const latency = withLatency(kv, 0);
  const kinds = cpuKinds(count);
  const page = async (query: (typeof kinds)[number]["queries"][number], store = counting.kv) => {
    const filters = exploreFilters(query);
    if (query.sort === "distance") {
      return (await exploreNearest(store, { filters, limit: PAGE })).items.length;
    }
    return (await exploreTasks(store, { filters, limit: PAGE })).items.length;
  };
  for (const kind of kinds) for (const query of kind.queries) await page(query);
  const trips = new Map<string, number>();
  for (const kind of kinds) {
    const waits: number[] = [];
    for (const query of kind.queries.slice(0, TRIPS_QUERIES)) {
      waits.push((await latency.traced(() => page(query, latency.kv))).trips.sequential);
    }
    trips.set(kind.name, waits.sort((a, b) => a - b)[Math.floor((waits.length - 1) / 2)]);
  }
  const results: KindReads[] = [];
  for (const kind of kinds) {
    const per: (ReadCounts & { items: number; ms: number })[] = [];
    const cpu = cpuUsage();
    for (const query of kind.queries) {
      counting.reset();
      const started = performance.now();
      const items = await page(query);
      per.push({ ...counting.counts, items, ms: performance.now() - started });
    }
    const spent = cpuUsage(cpu);
    results.push({
      name: kind.name,
      trips: trips.get(kind.name) ?? 0,
      cpuUs: (spent.user + spent.system) / kind.queries.length,
      calls: mean(per.map((p) => p.calls)),
      entries: mean(per.map((p) => p.entries)),
      lists: mean(per.map((p) => p.lists)),
      getManys: mean(per.map((p) => p.getManys)),
      items: mean(per.map((p) => p.items)),
      ms: mean(per.map((p) => p.ms)),
    });
  }
  return results;
}

export function readsTable(rows: KindReads[]): string {
  return markdownTable(
    [
      "explore kind",
      "KV calls / page",
      "lists",
      "getMany",
      "entries / page",
      "items",
      "round trips",
      "ms",
      "CPU µs",
    ],
    rows.map((r) => [
      r.name,
      r.calls.toFixed(1),
      r.lists.toFixed(1),
      r.getManys.toFixed(1),
      r.entries.toFixed(0),
      r.items.toFixed(1),
      String(r.trips),
      r.ms.toFixed(2),
      r.cpuUs.toFixed(0),
    ]),
  );
}

async function main() {
  const tasks = flag("tasks", 20_000);
  const queries = flag("queries", 100);
  if (!await readManifest(tasks)) await buildCache(tasks, console.error);
  const kv = await Deno.openKv(kvPath(tasks));
  const rows = await measureReads(kv, queries);
  kv.close();
  const table = readsTable(rows);
  console.log(`\n${table}\n`);
  const path = await writeResults({
    name: "explore_reads",
    command: `deno task bench:explore-reads --tasks=${tasks} --queries=${queries}`,
    comparedWith:
      "the 20 items a page answers (issue 28: a page's CPU follows its calls and entries)",
    body: [
      `${tasks} tasks (bench/datasets/explore_data.ts), first pages of ${PAGE}, ${queries} queries a kind, ` +
      "run once to warm the handle's plan memory, then counted (means a page). A list counts one " +
      "call per batch Deno fetches; a getMany one call and its keys as entries. Round trips: the " +
      `median of the first ${TRIPS_QUERIES} queries' sequential KV waits (kv/store/latency.ts).`,
      "",
      table,
      "",
      `Load average after the run: ${loadAverage()}.`,
    ].join("\n"),
  });
  console.log(`written to ${path}`);
}

if (import.meta.main) await main();
