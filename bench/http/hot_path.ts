/**
 * `deno task bench:hot-path`: the hot path over real HTTP (keyed and anonymous reads), this code
 * against an earlier commit (`--base=<ref>`) in the same run: each serves its own seeded store as
 * `deno task serve` runs main.ts, pinned to CPU 1, under wrk on CPU 0, the two alternated round by
 * round so that a machine's drift or another process's load falls on both alike. Server CPU per
 * request is the figure; the ratio of the medians says whether the hot path got slower. Flags:
 * --base=3432692 (the end of wave 2) --seconds=8 --rounds=5 --connections=32 --tasks=2000.
 */
import { codePath, extractCommit, SEED_PATHS } from "../lib/extract.ts";
import { numberFlag as flag } from "../lib/flags.ts";
import {
  run,
  type Server,
  serverCpuSeconds,
  servingPids,
  startServer,
} from "../lib/http_process.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";
import { ensureWrk, runWrk } from "../lib/wrk.ts";
import { projectRoot, taskRunArgs } from "../../scripts/task_line.ts";

const BASE_REF = Deno.args.find((a) => a.startsWith("--base="))?.slice(7) ?? "3432692";
const SECONDS = flag("seconds", 8);
const ROUNDS = flag("rounds", 5);
const CONNECTIONS = flag("connections", 32);
const TASKS = flag("tasks", 2000);
const HUGE_LIMIT = "1000000000";

/** What a commit needs to seed its store and serve as `deno task serve` does. */
const SERVICE_FILES = [
  ...[
    "main.ts",
    "routes",
    "domain",
    "kv",
    "io",
    "tests",
    "bench",
    "scripts",
    "deno.json",
    "deno.lock",
  ],
];

interface Variant {
  label: string;
  root: string;
  server: Server;
  apiKey: string;
  /** Paths files by scenario. */
  paths: Record<string, string>;
  /** CPU µs a request and req/s, one a round, by scenario. */
  cpuUs: Record<string, number[]>;
  rps: Record<string, number[]>;
}

const SCENARIOS = [
  { name: "GET /api/v1/tasks/:id", file: "get.txt", keyed: true },
  { name: "GET /api/v1/tasks?limit=20", file: "list.txt", keyed: true },
  { name: "GET /api/v1/tasks/:id, anonymous", file: "get.txt", keyed: false },
] as const;

async function git(args: string[]): Promise<string> {
  return (await run("git", ["-C", projectRoot, ...args])).trim();
}

/**
 * Seeds a store with the code under `root` (its own `bench/datasets/http_seed.ts`, so each commit
 * writes the index layout it reads), in a process of that code's config, and answers the seed's
 * JSON.
 */
async function seed(root: string, path: string): Promise<{ apiKey: string; taskIds: string[] }> {
  const json = JSON.stringify;
  const jobs = `${root}/kv/jobs/start.ts`;
  // A commit whose seed left its creates' jobs for the server (before bench/datasets/http_seed.ts ran them)
  // gets them run here, by its own job runner: no server starts on a backlog.
  const script = [
    `const { seedStore } = await import(${json(codePath(root, ...SEED_PATHS))});`,
    `const s = await seedStore(${json(path)}, ${TASKS});`,
    `if (await Deno.stat(${json(jobs)}).then(() => true, () => false)) {`,
    `  const { startJobs } = await import(${json(jobs)});`,
    `  const kv = await Deno.openKv(${json(path)});`,
    "  const runner = startJobs({ kv, now: () => Date.now() });",
    "  await runner.drain();",
    "  await runner.stop();",
    "  kv.close();",
    "}",
    "console.log(JSON.stringify({ apiKey: s.apiKey, taskIds: s.taskIds }));",
  ].join("\n");
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `--config=${root}/deno.json`, "--unstable-kv", script],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`seeding with ${root} failed`);
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

async function variant(label: string, root: string, dir: string): Promise<Variant> {
  const store = `${dir}/${label}.sqlite3`;
  const { apiKey, taskIds } = await seed(root, store);
  const paths: Record<string, string> = {};
  const byId = taskIds.map((id) => `/api/v1/tasks/${id}`).join("\n") + "\n";
  for (const [file, text] of [["get.txt", byId], ["list.txt", "/api/v1/tasks?limit=20\n"]]) {
    paths[file] = `${dir}/${label}-${file}`;
    await Deno.writeTextFile(paths[file], text);
  }
  // `deno task serve` as this checkout spells it, on the variant's main.ts and config.
  const args = taskRunArgs("serve").map((word) =>
    word.startsWith("--config=")
      ? `--config=${root}/deno.json`
      : word.endsWith("main.ts")
      ? `${root}/main.ts`
      : word.replace(/=\.\/data$/, `=${dir}`)
  );
  const server = await startServer({
    name: label,
    args,
    env: {
      KV_PATH: store,
      RATE_LIMIT_PER_HOUR: HUGE_LIMIT,
      ANON_RATE_LIMIT_PER_HOUR: HUGE_LIMIT,
      LOG_LEVEL: "info",
    },
    cpus: "1",
    cwd: dir,
  });
  return { label, root, server, apiKey, paths, cpuUs: {}, rps: {} };
}

async function measure(v: Variant, scenario: (typeof SCENARIOS)[number], seconds: number) {
  const pids = await servingPids(v.server);
  const before = await serverCpuSeconds(pids);
  const result = await runWrk({
    url: `http://127.0.0.1:${v.server.port}`,
    method: "GET",
    pathsFile: v.paths[scenario.file],
    apiKey: scenario.keyed ? v.apiKey : undefined,
    connections: CONNECTIONS,
    seconds,
  });
  if (result.non2xx > 0 || result.socketErrors > 0 || result.requests === 0) {
    throw new Error(`${v.label} ${scenario.name}: ${result.non2xx} non-2xx\n${result.raw}`);
  }
  return {
    cpuUs: (await serverCpuSeconds(pids) - before) * 1e6 / result.requests,
    rps: result.rps,
  };
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  await ensureWrk();
  if (navigator.hardwareConcurrency < 2) throw new Error("needs two CPUs: wrk on 0, server on 1");
  await run("taskset", ["-a", "-cp", "0", String(Deno.pid)]);
  const loadBefore = loadAverage();
  const baseCommit = await git(["rev-parse", "--short", BASE_REF]);
  const dir = await Deno.makeTempDir({ prefix: "bench-hotpath-" });
  const baseRoot = await extractCommit(BASE_REF, SERVICE_FILES);
  const variants: Variant[] = [];
  try {
    variants.push(await variant("A", baseRoot, dir));
    variants.push(await variant("B", projectRoot.replace(/\/$/, ""), dir));
    for (const scenario of SCENARIOS) {
      for (const v of variants) await measure(v, scenario, 2); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first, so neither always follows the other's heat.
        for (const v of round % 2 ? [...variants].reverse() : variants) {
          const { cpuUs, rps } = await measure(v, scenario, SECONDS);
          (v.cpuUs[scenario.name] ??= []).push(cpuUs);
          (v.rps[scenario.name] ??= []).push(rps);
        }
      }
    }
  } finally {
    for (const v of variants) {
      v.server.process.kill("SIGTERM");
      await v.server.process.status;
    }
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(baseRoot, { recursive: true });
  }
  const [a, b] = variants;
  const rows = SCENARIOS.flatMap((s) =>
    variants.map((v) => [
      s.name,
      v === a ? `A: ${baseCommit}` : "B: this code",
      Math.round(median(v.rps[s.name])),
      median(v.cpuUs[s.name]).toFixed(0),
      v.cpuUs[s.name].map((x) => x.toFixed(0)).join(" / "),
    ])
  );
  const ratios = SCENARIOS.map((s) => {
    const r = median(b.cpuUs[s.name]) / median(a.cpuUs[s.name]);
    return `${s.name}: B/A = ${r.toFixed(2)} by CPU per request (${
      r <= 1 ? "no slower" : "SLOWER"
    })`;
  });
  const body = [
    `## Requests over HTTP, ${ROUNDS} alternated rounds of ${SECONDS} s per scenario`,
    "",
    markdownTable(
      ["scenario", "code", "req/s (median)", "server CPU µs/req (median)", "CPU µs/req by round"],
      rows,
    ),
    "",
    "```",
    ...ratios,
    "```",
    "",
    `wrk ${CONNECTIONS} connections on CPU 0; each server one process on CPU 1, run as \`deno task ` +
    `serve\` runs main.ts, with its own store of ${TASKS} tasks seeded by its own code, an API ` +
    "key with an IP whitelist, the access log on and limits that never answer 429. " +
    `Load average before: ${loadBefore}.`,
  ].join("\n");
  console.log(body);
  const file = await writeResults({
    name: "hot_path",
    command: `deno task bench:hot-path --base=${BASE_REF}`,
    comparedWith: `the service at ${baseCommit}, served alongside in alternated rounds`,
    body,
  });
  console.log(`\nwritten to ${file}`);
}

if (import.meta.main) await main();
