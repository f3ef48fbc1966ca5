/**
 * `deno task bench:explore [--sizes=10000,100000,1000000] [--queries=200] [--fresh] [--cold]`: GET
 * /tasks/explore at scale. Per size it loads generated tasks through kv/ (cached between runs,
 * see explore_cache.ts), then, each in a fresh process so that peak memory is the phase's own:
 * the route's query function (and the route itself over app.request) on the explore indexes,
 * the same queries answered by a brute-force scan of every task record, and "newest 20 within
 * R km" answered by Redis GEOSEARCH on the same points (explore_bench_query.ts, _brute.ts and
 * _redis.ts). Prints markdown tables.
 */
import { arg } from "./explore_bench_args.ts";
import { brutePhase } from "./explore_bench_brute.ts";
import { queryPhase } from "./explore_bench_query.ts";
import { redisPhase } from "./explore_bench_redis.ts";
import {
  type BruteResult,
  type QueryPhase,
  type RedisPhase,
  type SizeReport,
  sizeReport,
  summary,
} from "./explore_bench_report.ts";
import { buildCache, kvPath, readManifest, storeBytes, warmFile } from "./explore_cache.ts";
import { loadAverage, writeResults } from "../lib/results.ts";

const FLAGS = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-net=127.0.0.1",
  "--allow-sys",
];

/** Runs a phase in a fresh process of this file and returns what it printed last, as JSON. */
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
  const cold = Deno.args.includes("--cold");
  const redisMin = Number(arg("redis-min") ?? 0);
  const reports: SizeReport[] = [];
  for (const size of sizes) {
    let manifest = fresh ? null : await readManifest(size);
    if (!manifest) {
      console.error(`loading ${size} tasks into ${kvPath(size)} ...`);
      manifest = await buildCache(size, console.error);
    }
    const warmedSeconds = cold ? null : await warmFile(kvPath(size));
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
      fileBytes: await storeBytes(kvPath(size)),
      warmedSeconds,
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
