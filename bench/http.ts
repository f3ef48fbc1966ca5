/**
 * `deno task bench:http`: the service over real HTTP against bare floors, under wrk, one core
 * each (wrk and this script on CPU 0, the server under test on CPU 1, each server its own
 * process). Prints requests per second, p50, p99 and server memory, the median of N runs taken
 * in interleaved rounds, and the ratios to the floors. Flags: --seconds=10 --runs=3
 * --connections=32 --tasks=2000 --warmup=3.
 */
import { benchTaskBody, seedStore } from "./http_seed.ts";
import { loadAverage as load, markdownTable, writeResults } from "./results.ts";
import { ensureWrk, runWrk, type WrkResult } from "./wrk.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const HUGE_LIMIT = "1000000000";

function flag(name: string, fallback: number): number {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.slice(name.length + 3)) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

const SECONDS = flag("seconds", 10);
const RUNS = flag("runs", 3);
const CONNECTIONS = flag("connections", 32);
const TASKS = flag("tasks", 2000);
const WARMUP = flag("warmup", 3);

interface Server {
  name: string;
  port: number;
  process: Deno.ChildProcess;
}

interface Scenario {
  label: string;
  what: string;
  server: Server;
  method: "GET" | "POST";
  pathsFile: string;
  apiKey?: string;
  bodyFile?: string;
  expect: number;
  runs: { result: WrkResult; rssMb: number; cpuUs: number }[];
  hwmMb: number;
}

async function run(command: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** VmRSS and VmHWM of a process in MB, from /proc (Deno reads /proc only with -A, cat can). */
async function memoryMb(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await run("cat", [`/proc/${pid}/status`]);
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { rss: field("VmRSS") / 1024, hwm: field("VmHWM") / 1024 };
}

/**
 * The arguments `deno task start` gives `deno run` (permissions, V8 flags, main.ts), with the
 * store's directory in place of ./data, so the service runs here exactly as it is started.
 */
async function startTaskArgs(dir: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const words = String(config.tasks.start).split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run") throw new Error("the start task is not deno run");
  return words.slice(2).map((word) => word.replace(/=\.\/data$/, `=${dir}`));
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await run("cat", [`/proc/${pid}/stat`]);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 1/100 s on Linux.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts a server process on CPU 1 and waits until it answers HTTP. */
async function startServer(name: string, args: string[], env: Record<string, string>) {
  const port = freePort();
  const process = new Deno.Command("taskset", {
    args: ["-c", "1", Deno.execPath(), "run", ...args],
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
    stdin: "null",
    // The access log goes to /dev/null: written (the service pays for it) but not kept.
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const server = { name, port: port, process };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await (await fetch(`http://127.0.0.1:${port}/health`)).body?.cancel();
      return server;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** One request as wrk will send it, so a wrong status fails before any load. */
async function check(s: Scenario) {
  const path = (await Deno.readTextFile(s.pathsFile)).split("\n")[0];
  const res = await fetch(`http://127.0.0.1:${s.server.port}${path}`, {
    method: s.method,
    headers: {
      ...(s.apiKey ? { "X-API-Key": s.apiKey } : {}),
      ...(s.bodyFile ? { "Content-Type": "application/json" } : {}),
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
  const pid = s.server.process.pid;
  let rss = 0;
  const sampler = setInterval(async () => {
    rss = Math.max(rss, (await memoryMb(pid)).rss);
  }, 1000);
  let result: WrkResult;
  const cpuBefore = await cpuSeconds(pid);
  try {
    result = await runWrk({
      url: `http://127.0.0.1:${s.server.port}`,
      method: s.method,
      pathsFile: s.pathsFile,
      apiKey: s.apiKey,
      bodyFile: s.bodyFile,
      connections: CONNECTIONS,
      seconds,
    });
  } finally {
    clearInterval(sampler);
  }
  const cpuUs = (await cpuSeconds(pid) - cpuBefore) * 1e6 / Math.max(1, result.requests);
  const memory = await memoryMb(pid);
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

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function main() {
  await ensureWrk();
  if (navigator.hardwareConcurrency < 2) throw new Error("needs two CPUs: wrk on 0, server on 1");
  // This script (seeding, sampling) stays on CPU 0 with wrk, off the server's core.
  await run("taskset", ["-a", "-cp", "0", String(Deno.pid)]);
  const loadBefore = load();

  const dir = await Deno.makeTempDir({ prefix: "bench-http-" });
  try {
    const seedPath = `${dir}/seed.sqlite3`;
    const store = await seedStore(seedPath, TASKS);
    const file = async (name: string, text: string) => {
      await Deno.writeTextFile(`${dir}/${name}`, text);
      return `${dir}/${name}`;
    };
    const kvCopy = async (name: string) => {
      for (const suffix of ["", "-wal", "-shm"]) {
        try {
          await Deno.copyFile(seedPath + suffix, `${dir}/${name}.sqlite3${suffix}`);
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
      }
      return `${dir}/${name}.sqlite3`;
    };
    const ids = [...store.taskIds].sort(() => Math.random() - 0.5);
    const bodyFile = await file("body.json", JSON.stringify(benchTaskBody(0)));
    const perms = [`--allow-read=${dir}`, `--allow-write=${dir}`];
    const serviceEnv = async (name: string) => ({
      KV_PATH: await kvCopy(name),
      RATE_LIMIT_PER_HOUR: HUGE_LIMIT,
      ANON_RATE_LIMIT_PER_HOUR: HUGE_LIMIT,
      LOG_LEVEL: "info",
    });
    const startArgs = await startTaskArgs(dir);
    const service = (name: string, env: Record<string, string>) =>
      startServer(name, startArgs, env);

    const servers: Server[] = [];
    const spawnFloor = async (name: string, mode: string) => {
      const server = await startServer(name, [
        "--allow-net",
        "--allow-env=PORT",
        ...perms,
        "bench/http_server.ts",
        mode,
        await kvCopy(name),
        store.userId,
      ], {});
      servers.push(server);
      return server;
    };
    const spawnService = async (name: string) => {
      const server = await service(name, await serviceEnv(name));
      servers.push(server);
      return server;
    };
    try {
      const floorGet = await spawnFloor("floor-get", "floor-get");
      const floorHeaders = await spawnFloor("floor-get-headers", "floor-get-headers");
      const svcGet = await spawnService("service-get");
      const svcList = await spawnService("service-list");
      const floorPost = await spawnFloor("floor-post", "floor-post");
      const svcPost = await spawnService("service-post");
      const scenario = (s: Omit<Scenario, "runs" | "hwmMb">): Scenario => ({
        ...s,
        runs: [],
        hwmMb: 0,
      });
      const scenarios = [
        scenario({
          label: "(a)",
          what: "floor: bare Hono, one kv.get of a task",
          server: floorGet,
          method: "GET",
          pathsFile: await file("floor-get.txt", ids.map((id) => `/tasks/${id}`).join("\n")),
          expect: 200,
        }),
        scenario({
          label: "(ah)",
          what: "floor (a) plus the contract's headers",
          server: floorHeaders,
          method: "GET",
          pathsFile: await file("floor-get.txt", ids.map((id) => `/tasks/${id}`).join("\n")),
          expect: 200,
        }),
        scenario({
          label: "(b)",
          what: "service GET /api/v1/tasks/:id, API key",
          server: svcGet,
          method: "GET",
          pathsFile: await file("get.txt", ids.map((id) => `/api/v1/tasks/${id}`).join("\n")),
          apiKey: store.apiKey,
          expect: 200,
        }),
        scenario({
          label: "(c)",
          what: "service GET /api/v1/tasks?limit=20, key",
          server: svcList,
          method: "GET",
          pathsFile: await file("list.txt", "/api/v1/tasks?limit=20"),
          apiKey: store.apiKey,
          expect: 200,
        }),
        scenario({
          label: "(d0)",
          what: "floor: bare Hono, createTask atomic",
          server: floorPost,
          method: "POST",
          pathsFile: await file("floor-post.txt", "/tasks"),
          bodyFile,
          expect: 201,
        }),
        scenario({
          label: "(d)",
          what: "service POST /api/v1/tasks, API key",
          server: svcPost,
          method: "POST",
          pathsFile: await file("post.txt", "/api/v1/tasks"),
          apiKey: store.apiKey,
          bodyFile,
          expect: 201,
        }),
      ];
      for (const s of scenarios) await check(s);
      for (const s of scenarios) await measure(s, WARMUP);
      const loads: string[] = [];
      for (let round = 0; round < RUNS; round++) {
        for (const s of scenarios) s.runs.push(await measure(s, SECONDS));
        loads.push(load());
      }
      await report(
        scenarios,
        store.taskIds.length,
        startArgs.join(" ").replaceAll(dir, "<tmp>"),
        loadBefore,
        loads,
      );
    } finally {
      for (const server of servers) {
        try {
          server.process.kill("SIGTERM");
        } catch { /* already gone */ }
        await server.process.status;
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function report(
  scenarios: Scenario[],
  tasks: number,
  startFlags: string,
  loadBefore: string,
  loads: string[],
) {
  const stats = new Map(scenarios.map((s) => [s.label, {
    rps: median(s.runs.map((r) => r.result.rps)),
    p50: median(s.runs.map((r) => r.result.p50Ms)),
    p99: median(s.runs.map((r) => r.result.p99Ms)),
    rss: Math.max(...s.runs.map((r) => r.rssMb)),
    cpu: median(s.runs.map((r) => r.cpuUs)),
  }]));
  const method = `
HTTP benchmark: wrk ${CONNECTIONS} connections, 1 thread, pinned to CPU 0; each server its own
process pinned to CPU 1. ${RUNS} runs of ${SECONDS} s per scenario in interleaved rounds after a
${WARMUP} s warm-up; figures are the median of the runs (p50 and p99 each their own median).
Store: a Deno KV SQLite file in a temp dir, seeded through kv/tasks.ts createTask with ${tasks}
tasks of one account, copied for every server. The service is main.ts run with the flags of
\`deno task start\` (${startFlags}), access log on
(LOG_LEVEL=info, stdout to /dev/null), with RATE_LIMIT_PER_HOUR=${HUGE_LIMIT} and
ANON_RATE_LIMIT_PER_HOUR=${HUGE_LIMIT}, so the limiter never answers 429; the API key has
the scopes tasks:read and tasks:write and an IP whitelist of 127.0.0.1 and ::1.
GET by id rotates over every seeded task; POST sends one create body. RSS: largest VmRSS of the
server process sampled each second under load; HWM: its VmHWM after the last run. CPU us/req:
the server's user + system CPU time over a run divided by its requests, which other load on the
machine disturbs far less than req/s; the CPU ratio is floor CPU / service CPU per request.
Load average (1/5/15 min) before: ${loadBefore}; after each round: ${loads.join(" | ")}
`;
  const rows = scenarios.map((s) => {
    const st = stats.get(s.label)!;
    return [
      s.label,
      s.what,
      st.rps.toFixed(0),
      st.p50.toFixed(2),
      st.p99.toFixed(2),
      st.cpu.toFixed(0),
      st.rss.toFixed(0),
      s.hwmMb.toFixed(0),
      s.runs.map((r) => r.result.rps.toFixed(0)).join(" / "),
    ];
  });
  const table = markdownTable(
    [
      "",
      "scenario",
      "req/s",
      "p50 ms",
      "p99 ms",
      "CPU µs/req",
      "RSS MB",
      "HWM MB",
      "req/s of runs",
    ],
    rows,
  );
  const ratio = (a: string, b: string) => stats.get(a)!.rps / stats.get(b)!.rps;
  const cpuRatio = (a: string, b: string) => stats.get(b)!.cpu / stats.get(a)!.cpu;
  const verdict = (ok: boolean) => ok ? "meets" : "MISSES";
  const rb = ratio("(b)", "(a)");
  const rh = ratio("(ah)", "(a)");
  const rc = ratio("(c)", "(a)");
  const rd = ratio("(d)", "(d0)");
  const services = scenarios.filter((s) => !s.label.includes("a") && s.label !== "(d0)");
  const peak = Math.max(...services.map((s) => Math.max(s.hwmMb, stats.get(s.label)!.rss)));
  const ratios = `
(b)/(a) = ${rb.toFixed(2)} by req/s, ${
    cpuRatio("(b)", "(a)").toFixed(2)
  } by CPU   target >= 0.70: ${verdict(rb >= 0.7)}
(ah)/(a) = ${rh.toFixed(2)} by req/s, ${
    cpuRatio("(ah)", "(a)").toFixed(2)
  } by CPU   (what the contract's response headers cost alone)
(b)/(ah) = ${ratio("(b)", "(ah)").toFixed(2)} by req/s, ${
    cpuRatio("(b)", "(ah)").toFixed(2)
  } by CPU   (the service against a floor that sends the same headers)
(c)/(a) = ${rc.toFixed(2)} by req/s, ${
    cpuRatio("(c)", "(a)").toFixed(2)
  } by CPU   (no target: a page of 20 against one kv.get)
(d)/(d0) = ${rd.toFixed(2)} by req/s, ${
    cpuRatio("(d)", "(d0)").toFixed(2)
  } by CPU  target >= 0.50: ${verdict(rd >= 0.5)}
service memory peak = ${peak.toFixed(0)} MB   target < 150 MB: ${verdict(peak < 150)}`;
  console.log(`${method}\n${table}\n${ratios}`);
  const file = await writeResults({
    name: "http",
    command: "deno task bench:http",
    comparedWith: "the floors (a), (ah) and (d0), bare Hono servers run in the same rounds",
    body: `${table}\n\n\`\`\`\n${ratios.trim()}\n\`\`\`\n\n${method.trim()}`,
  });
  console.log(`\nwritten to ${file}`);
}

if (import.meta.main) await main();
