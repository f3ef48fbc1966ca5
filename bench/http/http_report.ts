/**
 * The report of bench/http/http.ts: the table, the ratios to the floors, what 1 and 2 workers
 * predict for more cores, and the method, printed and written to bench/results/http.md.
 */
import type { WrkResult } from "../lib/wrk.ts";
import type { Server } from "../lib/http_process.ts";
import { markdownTable, writeResults } from "../lib/results.ts";

export interface Scenario {
  label: string;
  what: string;
  server: Server;
  method: "GET" | "POST";
  pathsFile: string;
  apiKey?: string;
  bodyFile?: string;
  /** Sent as Accept-Encoding (a client that takes gzip); none by default. */
  acceptEncoding?: string;
  expect: number;
  runs: { result: WrkResult; rssMb: number; cpuUs: number }[];
  hwmMb: number;
}

export interface ReportInput {
  scenarios: Scenario[];
  tasks: number;
  /** The flags the single-worker service ran with, the temp dir masked. */
  serveFlags: string;
  loadBefore: string;
  loads: string[];
  settings: { connections: number; runs: number; seconds: number; warmup: number };
  hugeLimit: string;
}

interface Stats {
  rps: number;
  p50: number;
  p99: number;
  rss: number;
  cpu: number;
  /** Cores the serving processes kept busy: req/s times CPU seconds per request. */
  busy: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function statsOf(s: Scenario): Stats {
  const rps = median(s.runs.map((r) => r.result.rps));
  const cpu = median(s.runs.map((r) => r.cpuUs));
  return {
    rps,
    p50: median(s.runs.map((r) => r.result.p50Ms)),
    p99: median(s.runs.map((r) => r.result.p99Ms)),
    rss: Math.max(...s.runs.map((r) => r.rssMb)),
    cpu,
    busy: rps * cpu / 1e6,
  };
}

const whereRun = (s: Server) =>
  s.workers === 0 ? `1 process, CPU ${s.cpus}` : `${s.workers} workers, CPUs ${s.cpus}`;

function ratioLines(stats: Map<string, Stats>): string {
  const ratio = (a: string, b: string) => stats.get(a)!.rps / stats.get(b)!.rps;
  const cpuRatio = (a: string, b: string) => stats.get(b)!.cpu / stats.get(a)!.cpu;
  const verdict = (ok: boolean) => ok ? "meets" : "MISSES";
  const line = (a: string, b: string, pad: string) =>
    `${a}/${b} = ${ratio(a, b).toFixed(2)} by req/s, ${cpuRatio(a, b).toFixed(2)} by CPU${pad}`;
  // The memory target is per process: the single-worker service rows.
  const peak = Math.max(...["(b)", "(c)", "(d)"].map((l) => stats.get(l)!.rss));
  return [
    `${line("(b)", "(a)", "   ")}target >= 0.70: ${verdict(ratio("(b)", "(a)") >= 0.7)}`,
    `${line("(ah)", "(a)", "   ")}(what the contract's response headers cost alone)`,
    `${line("(b)", "(ah)", "   ")}(the service against a floor that sends the same headers)`,
    `${line("(c)", "(a)", "   ")}(no target: a page of 20 against one kv.get)`,
    `${line("(bz)", "(b)", "  ")}(GET by id from a client that takes gzip: small, sent plain)`,
    `${line("(cz)", "(c)", "  ")}(the page of 20 gzipped for a client that takes it)`,
    `${line("(d)", "(d0)", "  ")}target >= 0.50: ${verdict(ratio("(d)", "(d0)") >= 0.5)}`,
    `service memory peak (one process) = ${peak.toFixed(0)} MB   target < 150 MB: ${
      verdict(peak < 150)
    }`,
  ].join("\n");
}

/**
 * What the 1- and 2-worker rows predict for more cores. CPU per request carries over to another
 * core count; req/s here does not (wrk shares CPU 0 with one of the two workers).
 */
function predictionLines(stats: Map<string, Stats>): string {
  const row = (kind: string, one: string, two: string) => {
    const a = stats.get(one)!;
    const b = stats.get(two)!;
    return {
      a,
      b,
      text: `${kind}: 1 worker ${a.rps.toFixed(0)} req/s at ${a.cpu.toFixed(0)} µs/req, ` +
        `${a.busy.toFixed(2)} cores busy; 2 workers ${b.rps.toFixed(0)} req/s (x${
          (b.rps / a.rps).toFixed(2)
        }) at ${b.cpu.toFixed(0)} µs/req (x${(b.cpu / a.cpu).toFixed(2)}), ${
          b.busy.toFixed(2)
        } cores busy`,
    };
  };
  const readLines = [["GET by id", "(b)", "(b2)"], ["list", "(c)", "(c2)"]].map(([k, one, two]) => {
    const { b, text } = row(k, one, two);
    const perCore = 1e6 / b.cpu;
    return `${text}\n  reads take no write lock: about ${perCore.toFixed(0)} req/s per core, ` +
      `so 4 cores ${(4 * perCore).toFixed(0)}, 8 cores ${(8 * perCore).toFixed(0)} req/s`;
  });
  const create = row("create", "(d)", "(d2)");
  const createLine = `${create.text}\n  creates are one checked atomic each on one SQLite ` +
    `file with one writer: a commit that meets another worker's write fails "database is ` +
    `locked" and is retried after a backoff, so a second worker gave x${
      (create.b.rps / create.a.rps).toFixed(2)
    } creates/s for x${(create.b.cpu / create.a.cpu).toFixed(2)} CPU per create; more cores ` +
    `on one file add retries, not creates. With no file lock (Deno Deploy's KV, instances ` +
    `scaled out) CPU alone bounds them: about ${(1e6 / create.a.cpu).toFixed(0)} creates/s ` +
    `per core`;
  return [...readLines, createLine].join("\n");
}

function table(scenarios: Scenario[], stats: Map<string, Stats>): string {
  const rows = scenarios.map((s) => {
    const st = stats.get(s.label)!;
    return [
      s.label,
      s.what,
      whereRun(s.server),
      st.rps.toFixed(0),
      st.p50.toFixed(2),
      st.p99.toFixed(2),
      st.cpu.toFixed(0),
      st.busy.toFixed(2),
      st.rss.toFixed(0),
      s.hwmMb.toFixed(0),
      s.runs.map((r) => r.result.rps.toFixed(0)).join(" / "),
    ];
  });
  return markdownTable(
    [
      "",
      "scenario",
      "server",
      "req/s",
      "p50 ms",
      "p99 ms",
      "CPU µs/req",
      "cores busy",
      "RSS MB",
      "HWM MB",
      "req/s of runs",
    ],
    rows,
  );
}

function methodText(input: ReportInput): string {
  const { connections, runs, seconds, warmup } = input.settings;
  const limit = input.hugeLimit;
  return `
HTTP benchmark: wrk ${connections} connections, 1 thread, pinned to CPU 0 with this script. Floors
and the single-worker service: each its own process pinned to CPU 1, a core of their own. The
2-worker service (b2, c2, d2): \`deno task start\` (scripts/start.ts) with WORKERS=2, its workers
on CPUs 0-1 (unpinned on this machine), so one of them shares CPU 0 with wrk: its req/s is what
2 cores give minus wrk's share, not twice a core; its CPU µs/req is the figure that carries over.
${runs} runs of ${seconds} s per scenario in interleaved rounds after a ${warmup} s warm-up; figures
are the median of the runs (p50 and p99 each their own median). Store: a Deno KV SQLite file in a
temp dir, seeded through kv/tasks/tasks.ts createTask with ${input.tasks} tasks of one account, copied
for every server (both workers of a 2-worker server share their copy). The single worker is
main.ts run as \`deno task serve\` runs it (${input.serveFlags}); the 2-worker service is
\`deno task start\` as deno.json spells it, in a directory whose ./data holds its copy. Access log
on (LOG_LEVEL=info, stdout to /dev/null), RATE_LIMIT_PER_HOUR=${limit} and
ANON_RATE_LIMIT_PER_HOUR=${limit}, so the limiter never answers 429; the API key has the scopes
tasks:read and tasks:write and an IP whitelist of 127.0.0.1 and ::1. (bz) and (cz) send
Accept-Encoding: gzip, deflate, br, as browsers and most clients do; the other rows send none
(wrk's default). GET by id rotates over every
seeded task; POST sends one create body. RSS: largest VmRSS of the serving processes (summed over
workers; the supervisor, which carries no request, left out) sampled each second under load; HWM:
their VmHWM after the last run, summed likewise. CPU µs/req: user + system CPU time of the serving
processes (summed over workers) over a run divided by its requests, which other load on the
machine disturbs far less than req/s; cores busy: req/s times that CPU; the CPU ratio is floor CPU
/ service CPU per request. More cores, predicted: a kind that stays CPU-bound serves 1e6 / (CPU
µs/req) requests a second per core, taken at 2 workers since that includes what sharing the store
costs; creates also wait for SQLite's one writer of the file, which the 2-worker row shows.
Load average (1/5/15 min) before: ${input.loadBefore}; after each round: ${input.loads.join(" | ")}
`;
}

/** Prints the report and writes it to bench/results/http.md. */
export async function report(input: ReportInput): Promise<void> {
  const stats = new Map(input.scenarios.map((s) => [s.label, statsOf(s)]));
  const figures = table(input.scenarios, stats);
  const ratios = ratioLines(stats);
  const predictions = predictionLines(stats);
  const method = methodText(input);
  console.log(`${method}\n${figures}\n\n${ratios}\n\n${predictions}`);
  const file = await writeResults({
    name: "http",
    command: "deno task bench:http",
    comparedWith: "the floors (a), (ah) and (d0), bare Hono servers run in the same rounds",
    body:
      `${figures}\n\n\`\`\`\n${ratios}\n\`\`\`\n\nMore cores, from CPU per request:\n\n\`\`\`\n${predictions}\n\`\`\`\n\n${method.trim()}`,
  });
  console.log(`\nwritten to ${file}`);
}
