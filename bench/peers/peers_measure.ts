/**
 * The peer bench's timed part: each kind's queries asked of explore in process (its front door),
 * of the route (`app.request`) and of PostGIS over its socket, one after the other per query, with
 * the caller's wall clock and the CPU each side spent (this process for explore; the connection's
 * backend for PostgreSQL, from /proc); and beside them the query's KV floor (`kv_floor.ts`).
 */
import process from "node:process";
import { type ExploreFilterQuery, exploreFilters } from "../../domain/explore.ts";
import { explorePage } from "../../kv/explore/mod.ts";
import { type QueryKind, queryString } from "../datasets/explore_data_queries.ts";
import type { BenchService } from "../lib/service.ts";
import type { Sql } from "./pg_cluster.ts";
import { peerPage, peerQuery } from "./pg_queries.ts";
import { comparePeers } from "./compare.ts";
import { floorPage, type FloorPool } from "./kv_floor.ts";

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
  /** The KV floor of the same pages, measured as explore is. */
  floor: SideFigures;
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
  /** The entries the KV floor lists. */
  pool: FloorPool;
}

/** One query as the sides are asked it, and its place in the kind. */
interface Asked {
  query: ExploreFilterQuery;
  turn: number;
}

async function explore(peers: Peers, { query }: Asked, side: Side): Promise<number> {
  const filters = exploreFilters(query);
  const sort = query.sort ?? "newest";
  const cpu0 = selfCpuUs();
  const t0 = performance.now();
  const page = await explorePage(peers.kv, { filters, sort, limit: PAGE });
  side.ms.push(performance.now() - t0);
  side.cpu.push(selfCpuUs() - cpu0);
  side.items += page.items.length;
  return page.items.length;
}

async function route(peers: Peers, { query }: Asked, side: Side) {
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

async function postgis(peers: Peers, { query }: Asked, side: Side) {
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

/** The KV floor of the page explore has just answered (so its item count is known). */
async function floor(peers: Peers, asked: Asked & { items: number }, side: Side) {
  const q = {
    filters: exploreFilters(asked.query),
    sort: asked.query.sort ?? "newest",
    limit: PAGE,
    items: asked.items,
    turn: asked.turn,
  };
  const cpu0 = selfCpuUs();
  const t0 = performance.now();
  const page = await floorPage(peers.kv, peers.pool, q);
  side.ms.push(performance.now() - t0);
  side.cpu.push(selfCpuUs() - cpu0);
  side.items += page.items.length;
}

type Sides = Record<"explore" | "route" | "postgis" | "floor", Side>;
type Step = (asked: Asked, sides: Sides) => Promise<void>;

const sidesOf = (): Sides => ({
  explore: new Side(),
  route: new Side(),
  postgis: new Side(),
  floor: new Side(),
});

/**
 * Asks each query of `kind` of the three sides, the order rotated query by query so that none
 * always runs first (on caches another side just warmed), and its KV floor right after explore,
 * which says how many items the page holds. There the floor finds Deno KV's threads awake, as a
 * busy server would: after a wait on PostGIS, waking them costs CPU, which would raise the floor
 * (and it reads other entries than the query's, so its place warms no entry for it);
 * `warmup`'s queries first, untimed. Then compares explore's and PostGIS's answers on the first
 * `sample` queries.
 */
export async function measureKind(
  peers: Peers,
  { kind, warmup, sample }: { kind: QueryKind; warmup: QueryKind; sample: number },
): Promise<KindFigures> {
  const sides = sidesOf();
  const steps: Step[] = [
    async (a, s) => floor(peers, { ...a, items: await explore(peers, a, s.explore) }, s.floor),
    (a, s) => route(peers, a, s.route),
    (a, s) => postgis(peers, a, s.postgis),
  ];
  const ask = async (asked: Asked, s: Sides, i: number) => {
    for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length](asked, s);
  };
  const scratch = sidesOf();
  for (const [i, query] of warmup.queries.entries()) await ask({ query, turn: i }, scratch, 0);
  for (const [i, query] of kind.queries.entries()) await ask({ query, turn: i }, sides, i);
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
    floor: sides.floor.figures(),
    sampled: sampled.length,
    differ,
  };
}
