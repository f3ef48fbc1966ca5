/**
 * The peer bench's timed part: each kind's queries asked of explore in process (its front door),
 * of the route (`app.request`) and of PostGIS over its socket, one after the other per query, with
 * the caller's wall clock and the CPU each side spent (this process for explore; the connection's
 * backend for PostgreSQL, from /proc).
 */
import process from "node:process";
import { type ExploreFilterQuery, exploreFilters } from "../../domain/explore.ts";
import { explorePage } from "../../kv/explore/mod.ts";
import { type QueryKind, queryString } from "../datasets/explore_data_queries.ts";
import type { BenchService } from "../lib/service.ts";
import type { Sql } from "./pg_cluster.ts";
import { peerPage, peerQuery } from "./pg_queries.ts";
import { comparePeers } from "./compare.ts";

export const PAGE = 20;
/** Items compared per sampled query (explore's pages followed by cursor). */
const COMPARED = 45;

/** p50 and p99 of one side's figure. */
export interface Spread {
  p50: number;
  p99: number;
}

/** One side of one kind: wall clock (ms) and CPU (µs) per query, and items per page. */
export interface SideFigures {
  ms: Spread;
  cpuUs: Spread;
  items: number;
}

/** One kind's figures on every side, and its compared sample. */
export interface KindFigures {
  name: string;
  explore: SideFigures;
  route: SideFigures;
  postgis: SideFigures;
  sampled: number;
  differ: number;
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

class Side {
  ms: number[] = [];
  cpu: number[] = [];
  items = 0;
  figures(): SideFigures {
    return { ms: spread(this.ms), cpuUs: spread(this.cpu), items: this.items / this.ms.length };
  }
}

/** CPU (µs) a process has spent: /proc/<pid>/schedstat's first field is its run time in ns. */
async function processCpuUs(pid: number): Promise<number> {
  const text = await Deno.readTextFile(`/proc/${pid}/schedstat`);
  return Number(text.split(" ")[0]) / 1000;
}

function selfCpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The sides a kind is asked of. */
export interface Peers {
  kv: Deno.Kv;
  svc: BenchService;
  sql: Sql;
  /** The backend serving `sql`'s one connection. */
  backendPid: number;
  table: string;
}

async function explore(peers: Peers, query: ExploreFilterQuery, side: Side) {
  const filters = exploreFilters(query);
  const sort = query.sort ?? "newest";
  const cpu0 = selfCpuUs();
  const t0 = performance.now();
  const page = await explorePage(peers.kv, { filters, sort, limit: PAGE });
  side.ms.push(performance.now() - t0);
  side.cpu.push(selfCpuUs() - cpu0);
  side.items += page.items.length;
}

async function route(peers: Peers, query: ExploreFilterQuery, side: Side) {
  const url = `/v1/tasks/explore?limit=${PAGE}&${queryString(query)}`;
  const cpu0 = selfCpuUs();
  const t0 = performance.now();
  const res = await peers.svc.request(url);
  const items = await res.json();
  side.ms.push(performance.now() - t0);
  side.cpu.push(selfCpuUs() - cpu0);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  side.items += items.length;
}

async function postgis(peers: Peers, query: ExploreFilterQuery, side: Side) {
  const sql = peerQuery(peers.table, {
    filters: exploreFilters(query),
    sort: query.sort ?? "newest",
    limit: PAGE,
  });
  const cpu0 = await processCpuUs(peers.backendPid);
  const t0 = performance.now();
  const rows = await peerPage(peers.sql, sql);
  side.ms.push(performance.now() - t0);
  side.cpu.push(await processCpuUs(peers.backendPid) - cpu0);
  side.items += rows.length;
}

/**
 * Asks each query of `kind` of the three sides, the order rotated query by query so that none
 * always runs first (on caches another side just warmed); `warmup`'s queries first, untimed.
 * Then compares explore's and PostGIS's answers on the first `sample` queries.
 */
export async function measureKind(
  peers: Peers,
  { kind, warmup, sample }: { kind: QueryKind; warmup: QueryKind; sample: number },
): Promise<KindFigures> {
  const sides = { explore: new Side(), route: new Side(), postgis: new Side() };
  const steps = [
    (q: ExploreFilterQuery, s: typeof sides) => explore(peers, q, s.explore),
    (q: ExploreFilterQuery, s: typeof sides) => route(peers, q, s.route),
    (q: ExploreFilterQuery, s: typeof sides) => postgis(peers, q, s.postgis),
  ];
  const scratch = { explore: new Side(), route: new Side(), postgis: new Side() };
  for (const q of warmup.queries) for (const step of steps) await step(q, scratch);
  for (const [i, q] of kind.queries.entries()) {
    for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length](q, sides);
  }
  let differ = 0;
  const sampled = kind.queries.slice(0, sample);
  for (const q of sampled) {
    const query = { filters: exploreFilters(q), sort: q.sort ?? "newest" };
    const { difference } = await comparePeers(peers.kv, peers.sql, {
      table: peers.table,
      query,
      want: COMPARED,
    });
    if (difference) differ++;
  }
  return {
    name: kind.name,
    explore: sides.explore.figures(),
    route: sides.route.figures(),
    postgis: sides.postgis.figures(),
    sampled: sampled.length,
    differ,
  };
}
