/**
 * `deno task bench:explore-tails [--n=1000000] [--kinds=nearest|geo 10] [--passes=4]`: where
 * bench:explore's p99 comes from. Runs its queries in its order (warm-up, then each once) pass after
 * pass in one process, the handle reopened each pass so that the plan memory starts empty as in the
 * first, and records each page's time beside what could have delayed it: a GC, disk reads, another
 * process taking the core. Compares the first pass (the one bench:explore times) with the later.
 */
import { exploreFilters } from "../domain/explore.ts";
import { exploreTasks } from "../kv/explore/newest_page.ts";
import { exploreNearest } from "../kv/explore/nearest/nearest_page.ts";
import { kvPath } from "./explore_cache.ts";
import { type QueryKind, queryKinds } from "./explore_data_queries.ts";
import { loadAverage, markdownTable, writeResults } from "./results.ts";

const PAGE = 20;
/** As bench:explore: ten pages of the kind's first query before its timed ones. */
const WARMUP = 10;

const libc = Deno.dlopen("libc.so.6", {
  getrusage: { parameters: ["i32", "buffer"], result: "i32" },
});
const usage = new BigInt64Array(18);
/** The process's resource usage so far (getrusage), read into `usage`. */
function rusage(): BigInt64Array {
  libc.symbols.getrusage(0, usage);
  return usage;
}
/** Involuntary context switches of the process so far: times another process took a core. */
const preemptions = () => Number(rusage()[17]);
/** Bytes this process has read from the disk so far (blocks of 512), not from the page cache. */
const diskBytes = () => Number(rusage()[11]) * 512;

/** One timed page and what went on in the process meanwhile. */
interface Sample {
  pass: number;
  kind: string;
  query: number;
  ms: number;
  entries: number;
  lists: number;
  /** The heap shrank over the page: a collection ran. */
  gc: boolean;
  disk: number;
  preempted: number;
}

async function page(kv: Deno.Kv, kind: QueryKind, i: number) {
  const query = kind.queries[i];
  const filters = exploreFilters(query);
  if (query.sort === "distance") {
    return (await exploreNearest(kv, { filters, limit: PAGE })).work;
  }
  return (await exploreTasks(kv, { filters, limit: PAGE })).work;
}

async function run(n: number, kinds: QueryKind[], passes: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let pass = 0; pass < passes; pass++) {
    using kv = await Deno.openKv(kvPath(n));
    for (const kind of kinds) {
      for (let k = -WARMUP; k < kind.queries.length; k++) {
        const query = Math.max(0, k);
        const heap = Deno.memoryUsage().heapUsed;
        const disk = diskBytes();
        const preempted = preemptions();
        const t0 = performance.now();
        const work = await page(kv, kind, query);
        const ms = performance.now() - t0;
        if (k < 0) continue;
        samples.push({
          pass,
          kind: kind.name,
          query,
          ms,
          entries: work.entries,
          lists: work.lists,
          gc: Deno.memoryUsage().heapUsed < heap,
          disk: diskBytes() - disk,
          preempted: preemptions() - preempted,
        });
      }
    }
  }
  return samples;
}

/** bench:explore's percentile: the value at rank ceil(q n). */
function at(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const f2 = (v: number) => v.toFixed(2);

function kindRow(name: string, samples: Sample[]): (string | number)[] {
  const mine = samples.filter((s) => s.kind === name);
  const first = mine.filter((s) => s.pass === 0);
  const later = mine.filter((s) => s.pass > 0);
  const byQuery = new Map<number, number[]>();
  for (const s of later) byQuery.set(s.query, [...byQuery.get(s.query) ?? [], s.ms]);
  const medians = [...byQuery.values()].map((v) => at(v, 0.5));
  // The pages at or above the first pass's p99, with what may have delayed them.
  const p99 = at(first.map((s) => s.ms), 0.99);
  const slow = first.filter((s) => s.ms >= p99);
  const why = slow.map((s) =>
    [
      `q${s.query} ${s.ms.toFixed(1)} ms`,
      s.disk > 0 ? `disk ${Math.round(s.disk / 1024)} KiB` : "",
      s.gc ? "GC" : "",
      s.preempted > 0 ? `preempted ${s.preempted}` : "",
    ].filter(Boolean).join(", ")
  ).join("; ");
  const laterP99 = (pass: number) =>
    at(later.filter((s) => s.pass === pass).map((s) => s.ms), 0.99);
  const passes = [...new Set(later.map((s) => s.pass))];
  return [
    name,
    `${f2(at(first.map((s) => s.ms), 0.5))} / ${f2(p99)}`,
    first.filter((s) => s.disk > 0).length,
    why,
    passes.map((p) => f2(laterP99(p))).join(", "),
    `${f2(at(later.map((s) => s.ms), 0.5))} / ${f2(at(later.map((s) => s.ms), 0.99))}`,
    `${f2(Math.max(...medians))} (q${[...byQuery.keys()][medians.indexOf(Math.max(...medians))]})`,
    (later.filter((s) => s.gc).length / passes.length).toFixed(1),
  ];
}

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

async function main() {
  const n = Number(arg("n") ?? 1_000_000);
  const count = Number(arg("queries") ?? 100);
  const passes = Math.max(2, Number(arg("passes") ?? 4));
  const only = arg("kinds")?.split("|");
  const kinds = queryKinds(count).filter((k) => !only || only.some((o) => k.name.includes(o)));
  const samples = await run(n, kinds, passes);
  const table = markdownTable(
    [
      "query",
      "first pass p50 / p99 ms",
      "first-pass pages reading the disk",
      "first pass: its pages at or above p99",
      "later passes' p99 each",
      "later passes p50 / p99",
      "slowest query's median, later passes",
      "GCs a pass",
    ],
    kinds.map((k) => kindRow(k.name, samples)),
  );
  const body = [
    `${
      n.toLocaleString("en")
    } tasks, ${count} queries a kind in bench:explore's order, each kind after 10 repeats of its first query, ` +
    `${passes} passes in one process, the handle reopened each pass (the plan memory empty at ` +
    `its start). The first pass is the one bench:explore timed before it warmed each kind on other points. Load average after the run: ` +
    `${loadAverage()}.`,
    "",
    table,
  ].join("\n");
  console.log(body);
  const file = await writeResults({
    name: "explore_tails",
    command: `deno task bench:explore-tails ${Deno.args.join(" ")}`.trim(),
    comparedWith:
      "the same queries' later passes in the same process (code compiled, pages cached)",
    body,
  });
  console.log(`\nwritten to ${file}`);
}

if (import.meta.main) await main();
