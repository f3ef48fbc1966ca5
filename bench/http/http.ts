/**
 * `deno task bench:http`: the service over real HTTP against bare floors, under wrk (wrk and this
 * script on CPU 0, each floor and the single-worker service its own process on CPU 1, the
 * 2-worker `deno task start` on both CPUs). Prints requests per second, p50, p99, CPU per request
 * and server memory, the median of N runs taken in interleaved rounds, the ratios to the floors
 * and what 1 and 2 workers predict for more cores. Flags: --seconds=10 --runs=3 --connections=32
 * --tasks=2000 --warmup=3.
 */
import { benchTaskBody, seedStore } from "../datasets/http_seed.ts";
import {
  run,
  type Server,
  serverCpuSeconds,
  serverMemoryMb,
  servingPids,
  startServer,
} from "../lib/http_process.ts";
import { report, type Scenario } from "./http_report.ts";
import { loadAverage as load } from "../lib/results.ts";
import { ensureWrk, runWrk, type WrkResult } from "../lib/wrk.ts";
import { taskRunArgs } from "../../scripts/task_line.ts";
import { numberFlag as flag } from "../lib/flags.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const HUGE_LIMIT = "1000000000";
/** What browsers and most HTTP clients send. */
const GZIP = "gzip, deflate, br";

const SECONDS = flag("seconds", 10);
const RUNS = flag("runs", 3);
const CONNECTIONS = flag("connections", 32);
const TASKS = flag("tasks", 2000);
const WARMUP = flag("warmup", 3);

/**
 * The arguments `deno task serve` gives `deno` (permissions, V8 flags, main.ts), with the store's
 * directory in place of ./data, so one worker runs here exactly as it is started.
 */
function serveTaskArgs(dir: string): string[] {
  return taskRunArgs("serve").map((word) => word.replace(/=\.\/data$/, `=${dir}`));
}

/** One request as wrk will send it, so a wrong status fails before any load. */
async function check(s: Scenario) {
  const path = (await Deno.readTextFile(s.pathsFile)).split("\n")[0];
  const res = await fetch(`http://127.0.0.1:${s.server.port}${path}`, {
    method: s.method,
    headers: {
      ...(s.apiKey ? { "X-API-Key": s.apiKey } : {}),
      ...(s.bodyFile ? { "Content-Type": "application/json" } : {}),
      ...(s.acceptEncoding ? { "Accept-Encoding": s.acceptEncoding } : {}),
    },
    body: s.bodyFile ? await Deno.readTextFile(s.bodyFile) : undefined,
  });
  const text = await res.text();
  if (res.status !== s.expect) {
    throw new Error(
      `${s.label} ${s.method} ${path} answered ${res.status}, not ${s.expect}: ${text}`,
    );
  }
}

async function measure(s: Scenario, seconds: number) {
  const pids = await servingPids(s.server);
  let rss = 0;
  const sampler = setInterval(async () => {
    rss = Math.max(rss, (await serverMemoryMb(pids)).rss);
  }, 1000);
  let result: WrkResult;
  const cpuBefore = await serverCpuSeconds(pids);
  try {
    result = await runWrk({
      url: `http://127.0.0.1:${s.server.port}`,
      method: s.method,
      pathsFile: s.pathsFile,
      apiKey: s.apiKey,
      bodyFile: s.bodyFile,
      acceptEncoding: s.acceptEncoding,
      connections: CONNECTIONS,
      seconds,
      // Past commit.ts's 5 s retry budget a create answers 500, which the check below reports.
      timeoutSeconds: 10,
    });
  } finally {
    clearInterval(sampler);
  }
  const cpuUs = (await serverCpuSeconds(pids) - cpuBefore) * 1e6 / Math.max(1, result.requests);
  // A worker started again during the run would have its CPU time counted from zero.
  if ((await servingPids(s.server)).join() !== pids.join()) {
    throw new Error(`${s.label}: a worker of ${s.server.name} was replaced during the run`);
  }
  const memory = await serverMemoryMb(pids);
  s.hwmMb = memory.hwm;
  rss = Math.max(rss, memory.rss);
  if (result.non2xx > 0 || result.socketErrors > 0 || result.requests === 0) {
    throw new Error(
      `${s.label}: ${result.non2xx} non-2xx responses, ${result.socketErrors} socket errors ` +
        `in ${result.requests} requests; the figures would be meaningless.\n${result.raw}`,
    );
  }
  return { result, rssMb: rss, cpuUs };
}

/** Copies the seeded store (with its WAL) to `path`, so every server starts from the same data. */
async function copyStore(seedPath: string, path: string): Promise<string> {
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      await Deno.copyFile(seedPath + suffix, path + suffix);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return path;
}

async function main() {
  await ensureWrk();
  if (navigator.hardwareConcurrency < 2) throw new Error("needs two CPUs: wrk on 0, server on 1");
  // This script (seeding, sampling) stays on CPU 0 with wrk, off the single server's core.
  await run("taskset", ["-a", "-cp", "0", String(Deno.pid)]);
  const loadBefore = load();

  const dir = await Deno.makeTempDir({ prefix: "bench-http-" });
  const servers: Server[] = [];
  try {
    const seedPath = `${dir}/seed.sqlite3`;
    const store = await seedStore(seedPath, TASKS);
    const file = async (name: string, text: string) => {
      await Deno.writeTextFile(`${dir}/${name}`, text);
      return `${dir}/${name}`;
    };
    const serviceEnv = {
      RATE_LIMIT_PER_HOUR: HUGE_LIMIT,
      ANON_RATE_LIMIT_PER_HOUR: HUGE_LIMIT,
      LOG_LEVEL: "info",
    };
    const serveArgs = serveTaskArgs(dir);
    const started = async (server: Promise<Server>) => {
      servers.push(await server);
      return servers[servers.length - 1];
    };
    const floor = async (name: string) =>
      started(startServer({
        name,
        args: [
          "run",
          "--allow-net",
          "--allow-env=PORT",
          `--allow-read=${dir}`,
          `--allow-write=${dir}`,
          "bench/http/http_server.ts",
          name,
          await copyStore(seedPath, `${dir}/${name}.sqlite3`),
          store.userId,
        ],
        env: {},
        cpus: "1",
        cwd: ROOT,
      }));
    const oneWorker = async (name: string) =>
      started(startServer({
        name,
        args: serveArgs,
        env: { ...serviceEnv, KV_PATH: await copyStore(seedPath, `${dir}/${name}.sqlite3`) },
        cpus: "1",
        cwd: ROOT,
      }));
    // `deno task start` as deno.json spells it, run where ./data is this server's own directory.
    const twoWorkers = async (name: string) => {
      const cwd = `${dir}/${name}`;
      await Deno.mkdir(`${cwd}/data`, { recursive: true });
      const kvPath = await copyStore(seedPath, `${cwd}/data/bench.sqlite3`);
      return started(startServer({
        name,
        args: taskRunArgs("start"),
        env: { ...serviceEnv, KV_PATH: kvPath, WORKERS: "2" },
        cpus: "0,1",
        workers: 2,
        cwd,
      }));
    };

    const scenario = (s: Omit<Scenario, "runs" | "hwmMb">): Scenario => ({
      ...s,
      runs: [],
      hwmMb: 0,
    });
    const byId = await file("get.txt", ids(store.taskIds, "/api/v1/tasks/"));
    const floorById = await file("floor-get.txt", ids(store.taskIds, "/tasks/"));
    const list = await file("list.txt", "/api/v1/tasks?limit=20");
    const create = await file("post.txt", "/api/v1/tasks");
    const bodyFile = await file("body.json", JSON.stringify(benchTaskBody(0)));
    const key = store.apiKey;
    const get = { method: "GET", expect: 200 } as const;
    const post = { method: "POST", expect: 201, bodyFile } as const;
    const scenarios = [
      scenario({
        label: "(a)",
        what: "floor: bare Hono, one kv.get of a task",
        server: await floor("floor-get"),
        pathsFile: floorById,
        ...get,
      }),
      scenario({
        label: "(ah)",
        what: "floor (a) plus the contract's headers",
        server: await floor("floor-get-headers"),
        pathsFile: floorById,
        ...get,
      }),
      scenario({
        label: "(b)",
        what: "service GET /api/v1/tasks/:id, API key",
        server: await oneWorker("service-get"),
        pathsFile: byId,
        apiKey: key,
        ...get,
      }),
      scenario({
        label: "(bz)",
        what: "(b) from a client that takes gzip",
        server: await oneWorker("service-get-gzip"),
        pathsFile: byId,
        apiKey: key,
        acceptEncoding: GZIP,
        ...get,
      }),
      scenario({
        label: "(b2)",
        what: "(b), deno task start, 2 workers",
        server: await twoWorkers("service2-get"),
        pathsFile: byId,
        apiKey: key,
        ...get,
      }),
      scenario({
        label: "(c)",
        what: "service GET /api/v1/tasks?limit=20, key",
        server: await oneWorker("service-list"),
        pathsFile: list,
        apiKey: key,
        ...get,
      }),
      scenario({
        label: "(cz)",
        what: "(c) from a client that takes gzip",
        server: await oneWorker("service-list-gzip"),
        pathsFile: list,
        apiKey: key,
        acceptEncoding: GZIP,
        ...get,
      }),
      scenario({
        label: "(c2)",
        what: "(c), deno task start, 2 workers",
        server: await twoWorkers("service2-list"),
        pathsFile: list,
        apiKey: key,
        ...get,
      }),
      scenario({
        label: "(d0)",
        what: "floor: bare Hono, createTask atomic",
        server: await floor("floor-post"),
        pathsFile: await file("floor-post.txt", "/tasks"),
        ...post,
      }),
      scenario({
        label: "(d)",
        what: "service POST /api/v1/tasks, API key",
        server: await oneWorker("service-post"),
        pathsFile: create,
        apiKey: key,
        ...post,
      }),
      scenario({
        label: "(d2)",
        what: "(d), deno task start, 2 workers",
        server: await twoWorkers("service2-post"),
        pathsFile: create,
        apiKey: key,
        ...post,
      }),
    ];
    for (const s of scenarios) await check(s);
    for (const s of scenarios) await measure(s, WARMUP);
    const loads: string[] = [];
    for (let round = 0; round < RUNS; round++) {
      for (const s of scenarios) s.runs.push(await measure(s, SECONDS));
      loads.push(load());
    }
    await report({
      scenarios,
      tasks: store.taskIds.length,
      serveFlags: serveArgs.join(" ").replaceAll(dir, "<tmp>").replaceAll(ROOT, ""),
      loadBefore,
      loads,
      settings: { connections: CONNECTIONS, runs: RUNS, seconds: SECONDS, warmup: WARMUP },
      hugeLimit: HUGE_LIMIT,
    });
  } finally {
    for (const server of servers) {
      try {
        server.process.kill("SIGTERM");
      } catch { /* already gone */ }
      await server.process.status;
    }
    await Deno.remove(dir, { recursive: true });
  }
}

/** The task pages, one a line, in a random order so that wrk does not read them in store order. */
function ids(taskIds: string[], prefix: string): string {
  return [...taskIds].sort(() => Math.random() - 0.5).map((id) => `${prefix}${id}`).join("\n");
}

if (import.meta.main) await main();
