/**
 * `deno task bench:explore-cpu [--tasks=20000] [--seconds=8] [--runs=3] [--connections=8]
 * [--base=<checkout>]`: the server CPU one anonymous explore page costs, per filter kind, against
 * an anonymous GET /tasks/:id on the same server, under wrk (the service as `deno task serve`
 * runs it, on CPU 1; wrk on CPU 0). Tasks: bench/datasets/explore_data.ts's everyday tasks, one live
 * author. Kinds are measured in interleaved rounds; each figure is the median of the runs. With
 * `--base`, a second server runs the code of that checkout (another commit's worktree) on the
 * same store, measured in turn with this one, kind by kind, in every round: an A/B under the same
 * load, which runs far apart on this shared machine are not.
 */
import { generateTask } from "../datasets/explore_data.ts";
import { queryKinds, queryString } from "../datasets/explore_data_queries.ts";
import { loadTasks } from "./explore_load.ts";
import {
  run,
  type Server,
  serverCpuSeconds,
  servingPids,
  startServer,
} from "../lib/http_process.ts";
import { seedStore } from "../datasets/http_seed.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";
import { ensureWrk, runWrk } from "../lib/wrk.ts";
import { numberFlag as flag } from "../lib/flags.ts";
import { taskRunArgs } from "../../scripts/task_line.ts";
import { type KindReads, measureReads } from "./explore_reads.ts";

const TASKS = flag("tasks", 20_000);
const SECONDS = flag("seconds", 8);
const RUNS = flag("runs", 3);
const CONNECTIONS = flag("connections", 8);
const BASE = Deno.args.find((a) => a.startsWith("--base="))?.slice("--base=".length);
const QUERIES = 200;
const ROOT = new URL("../..", import.meta.url).pathname;
const HUGE_LIMIT = "1000000000";

interface Kind {
  name: string;
  pathsFile: string;
  runs: { cpuUs: number; rps: number; p50Ms: number; p99Ms: number }[];
  /** The base checkout's server's runs (`--base`), interleaved with `runs`. */
  baseRuns: { cpuUs: number }[];
  /** What one page reads (bench:explore-reads' counts, in process on the same store). */
  reads?: KindReads;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

async function measure(server: Server, kind: Kind, seconds: number) {
  const pids = await servingPids(server);
  const before = await serverCpuSeconds(pids);
  const result = await runWrk({
    url: `http://127.0.0.1:${server.port}`,
    method: "GET",
    pathsFile: kind.pathsFile,
    connections: CONNECTIONS,
    seconds,
    // CPU per request is the figure, not latency: a slow answer on a loaded machine is no error.
    timeoutSeconds: 10,
  });
  const cpuUs = (await serverCpuSeconds(pids) - before) * 1e6 / Math.max(1, result.requests);
  if (result.non2xx > 0 || result.socketErrors > 0 || result.requests === 0) {
    throw new Error(`${kind.name}: ${result.non2xx} non-2xx, ${result.socketErrors} socket errors`);
  }
  return { cpuUs, rps: result.rps, p50Ms: result.p50Ms, p99Ms: result.p99Ms };
}

async function main() {
  await ensureWrk();
  if (navigator.hardwareConcurrency < 2) throw new Error("needs two CPUs: wrk on 0, server on 1");
  await run("taskset", ["-a", "-cp", "0", String(Deno.pid)]);
  const dir = await Deno.makeTempDir({ prefix: "bench-explore-cpu-" });
  let server: Server | null = null;
  let base: Server | null = null;
  const kinds: Kind[] = [];
  try {
    const kvPath = `${dir}/store.sqlite3`;
    console.log(`seeding ${TASKS} tasks…`);
    const store = await seedStore(kvPath, 0);
    const kv = await Deno.openKv(kvPath);
    await loadTasks(kv, TASKS, (i) => ({ ...generateTask(i, TASKS), userId: store.userId }));
    console.log("counting what each kind's pages read…");
    const reads = await measureReads(kv, QUERIES);
    kv.close();

    const file = async (name: string, lines: string[]) => {
      const path = `${dir}/${name}.txt`;
      await Deno.writeTextFile(path, lines.join("\n"));
      return path;
    };
    const ids = Array.from({ length: 2000 }, (_, k) => generateTask((k * 7919) % TASKS, TASKS).id);
    kinds.push({
      name: "GET /tasks/:id (the reference)",
      pathsFile: await file("by-id", ids.map((id) => `/api/v1/tasks/${id}`)),
      runs: [],
      baseRuns: [],
    });
    const explore = queryKinds(QUERIES).filter((kind) =>
      !/500 km|region viewport|antimeridian/.test(kind.name)
    );
    for (const [k, kind] of explore.entries()) {
      kinds.push({
        name: `explore: ${kind.name}`,
        reads: reads.find((r) => r.name === kind.name),
        pathsFile: await file(
          `explore-${k}`,
          kind.queries.map((query) => `/api/v1/tasks/explore?${queryString(query)}`),
        ),
        runs: [],
        baseRuns: [],
      });
    }

    const args = taskRunArgs("serve").map((word) => word.replace(/=\.\/data$/, `=${dir}`));
    const serve = (name: string, cwd: string) =>
      startServer({
        name,
        args,
        env: {
          KV_PATH: kvPath,
          RATE_LIMIT_PER_HOUR: HUGE_LIMIT,
          ANON_RATE_LIMIT_PER_HOUR: HUGE_LIMIT,
          LOG_LEVEL: "info",
        },
        cpus: "1",
        cwd,
      });
    server = await serve("service", ROOT);
    if (BASE) base = await serve("base", BASE);
    for (const kind of kinds) {
      await measure(server, kind, 2); // warm code and caches
      if (base) await measure(base, kind, 2);
    }
    for (let round = 0; round < RUNS; round++) {
      console.log(`round ${round + 1} of ${RUNS}…`);
      for (const kind of kinds) {
        // Which server goes first alternates, so that neither always follows the other's load.
        const order: (Server | null)[] = round % 2 === 0 ? [server, base] : [base, server];
        for (const s of order) {
          if (!s) continue;
          const measured = await measure(s, kind, SECONDS);
          if (s === server) kind.runs.push(measured);
          else kind.baseRuns.push(measured);
        }
      }
    }
  } finally {
    for (const s of [server, base]) {
      if (!s) continue;
      s.process.kill("SIGTERM");
      await s.process.status;
    }
    await Deno.remove(dir, { recursive: true });
  }
  await report(kinds);
}

async function report(kinds: Kind[]) {
  const reference = median(kinds[0].runs.map((r) => r.cpuUs));
  const baseReference = BASE ? median(kinds[0].baseRuns.map((r) => r.cpuUs)) : 0;
  const rows = kinds.map((kind) => {
    const cpu = median(kind.runs.map((r) => r.cpuUs));
    const baseCpu = BASE ? median(kind.baseRuns.map((r) => r.cpuUs)) : 0;
    const vsBase = BASE
      ? [baseCpu.toFixed(0), (baseCpu / baseReference).toFixed(2), (cpu / baseCpu).toFixed(2)]
      : [];
    return [
      kind.name,
      cpu.toFixed(0),
      (cpu / reference).toFixed(2),
      ...vsBase,
      median(kind.runs.map((r) => r.rps)).toFixed(0),
      median(kind.runs.map((r) => r.p50Ms)).toFixed(2),
      median(kind.runs.map((r) => r.p99Ms)).toFixed(2),
      kind.reads ? kind.reads.calls.toFixed(1) : "-",
      kind.reads ? kind.reads.entries.toFixed(0) : "-",
    ];
  });
  const table = markdownTable(
    [
      "request (anonymous)",
      "server CPU µs / request",
      "× GET by id",
      ...(BASE ? ["base: CPU µs", "base: × GET by id", "CPU / base's"] : []),
      "req/s",
      "p50 ms",
      "p99 ms",
      "KV calls / page",
      "entries / page",
    ],
    rows,
  );
  console.log(`\n${table}\n`);
  const path = await writeResults({
    name: "explore_cpu",
    command:
      `deno task bench:explore-cpu --tasks=${TASKS} --seconds=${SECONDS} --runs=${RUNS} --connections=${CONNECTIONS}${
        BASE ? ` --base=${BASE}` : ""
      }`,
    comparedWith: "an anonymous GET /tasks/:id on the same server in the same rounds (issue 28's " +
      "target: an explore page at most 3x its CPU)",
    body: [
      `${TASKS} tasks (bench/datasets/explore_data.ts), one worker on CPU 1 as \`deno task serve\` runs it,`,
      `wrk on CPU 0 with ${CONNECTIONS} connections, ${QUERIES} varied queries a kind sent in turn;`,
      `median of ${RUNS} interleaved ${SECONDS} s runs. CPU from /proc (user + system) over the run.`,
      "KV calls and entries a page: bench:explore-reads' load-independent counts (means over the",
      "same queries, in process on the same store, the handle warmed first).",
      ...(BASE
        ? [
          `Base: the checkout at ${BASE} (${await baseCommit()}), served on the same store and CPU,`,
          "measured right before or after this server, kind by kind, in every round.",
        ]
        : []),
      "",
      table,
      "",
      `Load average after the run: ${loadAverage()}.`,
    ].join("\n"),
  });
  console.log(`written to ${path}`);
}

/** The commit of the base checkout, as `git` names it. */
async function baseCommit(): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-C", BASE!, "rev-parse", "--short", "HEAD"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).trim() || "unknown commit";
}

if (import.meta.main) await main();
