/**
 * The explore benchmark's results: what each phase measures (the JSON its process prints) and the
 * markdown tables made of them (`bench/explore/explore.ts` runs the phases).
 */
import type { LoadManifest } from "./explore_cache.ts";
import { markdownTable as table } from "../lib/results.ts";

export interface Timing {
  p50: number;
  p99: number;
  count: number;
}

/** The median and 99th percentile of `ms`. */
export function timing(ms: number[]): Timing {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), count: sorted.length };
}

export interface KindResult {
  name: string;
  index: Timing;
  http: Timing;
  /** Mean items on the first page. */
  items: number;
  /** Pages cut short by the storage budget (fewer than 20 items but a cursor). */
  short: number;
  plans: string;
  entries: number;
  docs: number;
  /** Median KV round trips a first page waits for in sequence (kv/store/latency.ts). */
  trips: number;
}

export interface QueryPhase {
  kinds: KindResult[];
  peakBytes: number;
  loadAverage: string;
}

export interface BruteResult {
  name: string;
  brute: Timing;
  agree: number;
  compared: number;
}

export interface RedisResult {
  name: string;
  within: Timing;
  nearest: Timing;
  /** Mean members GEOSEARCH returned for "all within R". */
  members: number;
}

export interface RedisPhase {
  points: number;
  loadSeconds: number;
  usedMemoryBytes: number;
  kinds: RedisResult[];
}

export interface SizeReport {
  n: number;
  manifest: LoadManifest;
  fileBytes: number;
  /** Seconds spent reading the store's file before querying, or null when run `--cold`. */
  warmedSeconds: number | null;
  query: QueryPhase;
  brute: BruteResult[] | null;
  redis: RedisPhase | null;
}

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const mb = (b: number) => (b / 2 ** 20).toFixed(0);

export function sizeReport(r: SizeReport): string {
  const m = r.manifest;
  const perTask = (m.stats.indexEntries / m.stats.tasks).toFixed(1);
  const explorePerTask = (m.stats.explore / m.stats.tasks).toFixed(1);
  const lines = [
    `\n### ${r.n.toLocaleString("en")} tasks`,
    "",
    `Load ${m.seconds.toFixed(0)} s (${(m.stats.tasks / m.seconds).toFixed(0)} tasks/s, ` +
    `${m.stats.commits} atomics, load average ${m.loadAverage}); KV file ${mb(r.fileBytes)} MiB; ` +
    `index entries per task ${perTask} (explore ${explorePerTask}) + ` +
    `${m.stats.counters.toLocaleString("en")} counters in all; ` +
    `peak RSS of the query process ${mb(r.query.peakBytes)} MiB ` +
    `(load average while querying ${r.query.loadAverage}). ` +
    (r.warmedSeconds === null
      ? "Run `--cold`: the store's file was not read before querying."
      : `The store's file was read once before querying (${r.warmedSeconds.toFixed(0)} s), ` +
        "so its pages come from the page cache, not the disk."),
    "",
  ];
  const brute = new Map((r.brute ?? []).map((b) => [b.name, b]));
  lines.push(table(
    [
      "query",
      "index p50 ms",
      "index p99 ms",
      "HTTP p50 ms",
      "HTTP p99 ms",
      "brute p50 ms",
      "brute p99 ms",
      "agree",
      "items",
      "short",
      "entries",
      "docs",
      "round trips",
      "plan",
    ],
    r.query.kinds.map((k) => {
      const b = brute.get(k.name);
      return [
        k.name,
        ms(k.index.p50),
        ms(k.index.p99),
        ms(k.http.p50),
        ms(k.http.p99),
        b ? ms(b.brute.p50) : "-",
        b ? ms(b.brute.p99) : "-",
        b ? `${b.agree}/${b.compared}` : "-",
        k.items.toFixed(1),
        k.short,
        k.entries.toFixed(0),
        k.docs.toFixed(0),
        k.trips,
        k.plans,
      ];
    }),
  ));
  if (r.redis) {
    lines.push(
      "",
      `Redis ${r.redis.points.toLocaleString("en")} city points loaded in ` +
        `${r.redis.loadSeconds.toFixed(0)} s, used_memory ${mb(r.redis.usedMemoryBytes)} MiB.`,
      "",
      table(
        [
          "query",
          "KV index p50 / p99 ms",
          "GEOSEARCH all, newest 20 p50 / p99 ms",
          "GEOSEARCH ASC COUNT 20 (nearest) p50 / p99 ms",
          "members in circle",
        ],
        r.redis.kinds.filter((k) => r.query.kinds.some((q) => q.name === k.name)).map((k) => {
          const kvRow = r.query.kinds.find((q) => q.name === k.name)!;
          return [
            k.name,
            `${ms(kvRow.index.p50)} / ${ms(kvRow.index.p99)}`,
            `${ms(k.within.p50)} / ${ms(k.within.p99)}`,
            `${ms(k.nearest.p50)} / ${ms(k.nearest.p99)}`,
            k.members.toFixed(0),
          ];
        }),
      ),
    );
  }
  return lines.join("\n");
}

export function summary(reports: SizeReport[]): string {
  if (reports.length === 0) return "";
  const first = reports[0];
  const last = reports[reports.length - 1];
  const head = ["query", ...reports.map((r) => `${r.n.toLocaleString("en")} p50 / p99 ms`)];
  if (reports.length > 1) head.push(`p50 ${last.n}/${first.n}`);
  const rows = first.query.kinds.map((k, i) => {
    const cells: (string | number)[] = [k.name];
    for (const r of reports) {
      const t = r.query.kinds[i].index;
      cells.push(`${ms(t.p50)} / ${ms(t.p99)}`);
    }
    if (reports.length > 1) {
      cells.push((last.query.kinds[i].index.p50 / k.index.p50).toFixed(2));
    }
    return cells;
  });
  rows.push(["load time s", ...reports.map((r) => r.manifest.seconds.toFixed(0))]);
  rows.push(["KV file MiB", ...reports.map((r) => mb(r.fileBytes))]);
  rows.push(["peak RSS, query process MiB", ...reports.map((r) => mb(r.query.peakBytes))]);
  return `\n### Index queries across sizes (in-process exploreTasks, first page of 20, each kind timed after 30 untimed queries of its kind at other points)\n\n${
    table(head, rows)
  }`;
}
