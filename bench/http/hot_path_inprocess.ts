/**
 * `deno task bench:hot-path-inprocess`: the hot path without HTTP, this code against an earlier
 * commit (`--base=<ref>`): each seeds its own store with its own code, builds its app as main.ts
 * does, and answers `app.request` in one process, the two alternated round by round. Two figures:
 * the process's CPU time a request (all threads, so the store's own work counts), and the V8 heap
 * a request allocates (semi-spaces large enough that no collection runs within a batch: a
 * load-independent figure, in a process of its own). Flags: --base=3432692 --rounds=30 --batch=300.
 */
import process from "node:process";
import { codePath, extractCommit, SEED_PATHS } from "../lib/extract.ts";
import { numberFlag } from "../lib/flags.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";

const BASE_REF = Deno.args.find((a) => a.startsWith("--base="))?.slice(7) ?? "3432692";
const ROUNDS = numberFlag("rounds", 30);
const BATCH = numberFlag("batch", 300);
const TASKS = 200;
const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const SERVICE_FILES = ["main.ts", "routes", "domain", "kv", "io", "tests", "bench", "scripts"];
// Large enough that a batch of the largest scenario allocates without a scavenge.
const ALLOC_FLAGS = "--expose-gc,--min-semi-space-size=128,--max-semi-space-size=128";

const SCENARIOS = [
  { name: "GET /api/v1/tasks/:id", keyed: true, list: false },
  { name: "GET /api/v1/tasks?limit=20", keyed: true, list: true },
  { name: "GET /api/v1/tasks/:id, anonymous", keyed: false, list: false },
] as const;

type Mode = "cpu" | "alloc";

interface App {
  request(path: string, init: RequestInit, env: unknown): Response | Promise<Response>;
}

interface Variant {
  label: string;
  app: App;
  apiKey: string;
  taskIds: string[];
}

const ENV = { remoteAddr: { hostname: "127.0.0.1", port: 40000, transport: "tcp" } };

/** A service of the code under `root`, on a store seeded by that code, as main.ts builds it. */
async function variant(label: string, root: string, dir: string): Promise<Variant> {
  const path = `${dir}/${label}.sqlite3`;
  const { seedStore } = await import(codePath(root, ...SEED_PATHS));
  const { apiKey, taskIds } = await seedStore(path, TASKS);
  const { createApp } = await import(`${root}/routes/app.ts`);
  const { createDeps } = await import(codePath(root, "routes/router/deps.ts", "routes/deps.ts"));
  const { parseSettings } = await import(`${root}/domain/settings.ts`);
  const kv = await Deno.openKv(path);
  const settings = parseSettings({
    KV_PATH: path,
    RATE_LIMIT_PER_HOUR: "1000000000",
    ANON_RATE_LIMIT_PER_HOUR: "1000000000",
    LOG_LEVEL: "info", // the access log on, as served; stdout goes nowhere
  });
  const app = createApp(await createDeps(kv, settings));
  return { label, app, apiKey, taskIds };
}

let sent = 0;

async function send(v: Variant, scenario: (typeof SCENARIOS)[number]) {
  const path = scenario.list
    ? "/api/v1/tasks?limit=20"
    : `/api/v1/tasks/${v.taskIds[sent++ % v.taskIds.length]}`;
  const headers: Record<string, string> = scenario.keyed ? { "X-API-Key": v.apiKey } : {};
  const res = await v.app.request(path, { headers }, ENV);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${v.label} ${scenario.name}: ${res.status}`);
}

/** One batch's figure a request: CPU µs, or heap KB allocated. */
async function batch(v: Variant, scenario: (typeof SCENARIOS)[number], mode: Mode) {
  if (mode === "alloc") {
    const before = Deno.memoryUsage().heapUsed;
    for (let i = 0; i < BATCH; i++) await send(v, scenario);
    const kb = (Deno.memoryUsage().heapUsed - before) / BATCH / 1024;
    (globalThis as { gc?: () => void }).gc?.();
    return kb;
  }
  const before = process.cpuUsage();
  for (let i = 0; i < BATCH; i++) await send(v, scenario);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / BATCH;
}

/** The child's part: every scenario, A and B alternated; writes the figures as JSON to `out`. */
async function measure(mode: Mode, baseRoot: string, out: string) {
  const dir = await Deno.makeTempDir({ prefix: "bench-inprocess-" });
  const variants = [await variant("A", baseRoot, dir), await variant("B", ROOT, dir)];
  const figures: Record<string, Record<string, number[]>> = {};
  for (const scenario of SCENARIOS) {
    const byVariant: Record<string, number[]> = (figures[scenario.name] = { A: [], B: [] });
    for (const v of variants) for (let i = 0; i < BATCH; i++) await send(v, scenario); // warm-up
    const rounds = mode === "alloc" ? Math.min(ROUNDS, 10) : ROUNDS;
    for (let round = 0; round < rounds; round++) {
      for (const v of round % 2 ? [...variants].reverse() : variants) {
        byVariant[v.label].push(await batch(v, scenario, mode));
      }
    }
  }
  await Deno.writeTextFile(out, JSON.stringify(figures));
  await Deno.remove(dir, { recursive: true });
  Deno.exit(0); // the services' background timers would keep the process alive
}

async function child(mode: Mode, baseRoot: string) {
  const v8 = mode === "alloc" ? [`--v8-flags=${ALLOC_FLAGS}`] : [];
  const file = await Deno.makeTempFile({ suffix: ".json" });
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--config=${ROOT}/deno.json`,
      ...v8,
      import.meta.filename!,
      `--child=${mode}`,
      `--base-root=${baseRoot}`,
      `--out=${file}`,
      `--rounds=${ROUNDS}`,
      `--batch=${BATCH}`,
    ],
    stdout: "null", // the services' access log
    stderr: "inherit",
  }).output();
  if (!run.success) throw new Error(`the ${mode} run failed`);
  const figures = JSON.parse(await Deno.readTextFile(file));
  await Deno.remove(file);
  return figures as Record<string, Record<string, number[]>>;
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const loadBefore = loadAverage();
  const baseRoot = await extractCommit(BASE_REF, SERVICE_FILES);
  let cpu, alloc;
  try {
    cpu = await child("cpu", baseRoot);
    alloc = await child("alloc", baseRoot);
  } finally {
    await Deno.remove(baseRoot, { recursive: true });
  }
  const rows = SCENARIOS.flatMap((s) =>
    ["A", "B"].map((label) => [
      s.name,
      label === "A" ? `A: ${BASE_REF}` : "B: this code",
      Math.min(...cpu[s.name][label]).toFixed(1),
      median(cpu[s.name][label]).toFixed(1),
      median(alloc[s.name][label]).toFixed(1),
    ])
  );
  const ratios = SCENARIOS.map((s) => {
    const [a, b] = [cpu[s.name].A, cpu[s.name].B];
    const [ka, kb] = [median(alloc[s.name].A), median(alloc[s.name].B)];
    return `${s.name}: B/A CPU ${(median(b) / median(a)).toFixed(3)} (median), ` +
      `${(Math.min(...b) / Math.min(...a)).toFixed(3)} (min); heap ${(kb / ka).toFixed(3)}`;
  });
  const body = [
    `## In process, ${ROUNDS} alternated rounds of ${BATCH} requests per scenario`,
    "",
    markdownTable(
      ["scenario", "code", "CPU µs/req (min)", "CPU µs/req (median)", "heap KB/req (median)"],
      rows,
    ),
    "",
    "```",
    ...ratios,
    "```",
    "",
    "`app.request` on each commit's own store of 200 tasks seeded by its own code, built as " +
    "main.ts builds it (the access log on, limits that never answer 429), in one process. CPU " +
    "is the process's user + system time (every thread); heap is V8's growth over a batch, in a " +
    `second process whose semi-spaces hold a batch without a collection. Load average before: ` +
    `${loadBefore}.`,
  ].join("\n");
  console.log(body);
  const file = await writeResults({
    name: "hot_path_inprocess",
    command: `deno task bench:hot-path-inprocess --base=${BASE_REF}`,
    comparedWith: `the service at ${BASE_REF}, in the same process, alternated rounds`,
    body,
  });
  console.log(`\nwritten to ${file}`);
}

const arg = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
if (import.meta.main) {
  const childMode = arg("child") as Mode | undefined;
  if (childMode) {
    await measure(childMode, arg("base-root")!, arg("out")!);
  } else {
    await main();
  }
}
