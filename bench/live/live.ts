/**
 * bench:live: live event streams on one instance (bench/live/live_server.ts in its own process),
 * with the store's watch and with polling. Delivery lag from an event's raising to the client with
 * 1, 100 and 1,000 open streams (one account each); the extra memory (RSS and heap) and CPU of
 * 1,000 idle streams and the KV reads they cost, over `--runs` fresh processes (3 by default),
 * beside what Deno.serve alone holds for as many open streamed answers. Compared with the same
 * instance holding no stream (its own background work) and with the goals of issue 42 (lag within
 * 1 s; under 50 MiB and 5% of a core for 1,000 idle streams; no per-stream polling where watch
 * exists).
 */
import { markdownTable, writeResults } from "../lib/results.ts";
import { Samples } from "../lib/samples.ts";
import { taskBody } from "../datasets/task_body.ts";

const STREAM_COUNTS = [1, 100, 1000];
const EVENTS = 100;
const IDLE_MS = 20_000;
const IDLE_STREAMS = 1000;
const MiB = 1024 * 1024;
const runsArg = Deno.args.find((a) => a.startsWith("--runs="));
const RUNS = runsArg ? Number(runsArg.slice("--runs=".length)) : 3;
// One mode alone (watch, poll or bare), written to live_<mode>.md: to look again at one figure.
const ONLY = Deno.args.find((a) => a.startsWith("--only="))?.slice("--only=".length);

interface Stats {
  rss: number;
  heap: number;
  heapTotal: number;
  external: number;
  cpuMs: number;
  reads: number;
  feedReads: number;
  streams: number;
}

/** The service process, with its stats on request. */
async function startServer(kind: "watch" | "poll" | "bare") {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--v8-flags=--expose-gc",
      new URL("./live_server.ts", import.meta.url).pathname,
      ...(kind === "watch" ? [] : [`--${kind}`]),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const nextLine = async (): Promise<string> => {
    for (;;) {
      const at = buffer.indexOf("\n");
      if (at >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        return line;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("the server ended");
      buffer += value;
    }
  };
  const { port, mode } = JSON.parse(await nextLine());
  const writer = child.stdin.getWriter();
  return {
    base: `http://127.0.0.1:${port}`,
    mode: mode as { watch: boolean; poll: boolean },
    async stats(): Promise<Stats> {
      await writer.write(new TextEncoder().encode("stats\n"));
      return JSON.parse(await nextLine());
    },
    async stop() {
      await writer.close().catch(() => {});
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await child.status;
      clearTimeout(timer);
    },
  };
}

// Requests go through a client of their own: the streams' connections stay open in theirs.
const requests = Deno.createHttpClient({});

async function json(url: string, init: RequestInit & { json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set("Content-Type", "application/json");
  const res = await fetch(url, {
    client: requests,
    ...init,
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function account(base: string): Promise<string> {
  const email = `live-${crypto.randomUUID()}@example.com`;
  const password = "correct horse battery";
  await json(`${base}/v1/users`, { method: "POST", json: { email, password, firstName: "B" } });
  return (await json(`${base}/v1/auth/token`, { method: "POST", json: { email, password } }))
    .token;
}

/** One open stream; each event's lag (raised at `createdAt`, read now) goes to `lags`. */
async function openStream(base: string, token: string | null, onLag: (ms: number) => void) {
  const abort = new AbortController();
  let res: Response;
  // A slot given back by a stream just closed frees once the server has seen it go.
  for (let attempt = 0;; attempt++) {
    res = await fetch(`${base}/api/v1/events/stream`, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
      signal: abort.signal,
    });
    if (res.status !== 429 || attempt >= 100) break;
    await res.body?.cancel();
    await wait(100);
  }
  if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
  const reading = (async () => {
    let buffer = "";
    try {
      for await (const text of res.body!.pipeThrough(new TextDecoderStream())) {
        buffer += text;
        let at;
        while ((at = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const data = frame.split("\n").find((line) => line.startsWith("data: "));
          if (data) onLag(Date.now() - Date.parse(JSON.parse(data.slice(6)).createdAt));
        }
      }
    } catch {
      // Closed by the bench.
    }
  })();
  return {
    close() {
      // Not awaited: the server ends its side when it sees the connection go.
      abort.abort();
      reading.catch(() => {});
    },
  };
}

/** Raises EVENTS task.created events, each for one of `tokens` at random; their lags. */
async function measureLag(base: string, tokens: string[], seen: () => number) {
  const body = taskBody();
  const before = seen();
  for (let i = 0; i < EVENTS; i++) {
    const token = tokens[Math.floor(Math.random() * tokens.length)];
    await json(`${base}/api/v1/tasks`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      json: body,
    });
    await new Promise((r) => setTimeout(r, 20));
  }
  console.error(`${EVENTS} events raised`);
  const deadline = Date.now() + 10_000;
  while (seen() - before < EVENTS && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return seen() - before;
}

/** What 1,000 idle streams cost one process, beyond the same process before they opened. */
interface IdleFigures {
  rssMiB: number;
  heapMiB: number;
  heapTotalMiB: number;
  cpuPercent: number;
  reads: number;
  baseline: { cpuPercent: number; readsPerSecond: number };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * On a fresh `server`: its baseline with no stream, then IDLE_STREAMS streams opened (one per
 * token, or bare) and left idle; answers the figures and the streams, still open.
 */
async function idleRun(
  server: Awaited<ReturnType<typeof startServer>>,
  tokens: (string | null)[],
  onLag: (ms: number) => void,
) {
  // The instance idle with no stream: its own background work, to subtract.
  await wait(3000);
  const b0 = await server.stats();
  await wait(IDLE_MS);
  const b1 = await server.stats();
  const baseline = {
    cpuPercent: (b1.cpuMs - b0.cpuMs) / IDLE_MS * 100,
    readsPerSecond: (b1.reads - b0.reads) / (IDLE_MS / 1000),
  };
  const streams: { close(): void }[] = [];
  for (const token of tokens) streams.push(await openStream(server.base, token, onLag));
  await wait(3000);
  const i0 = await server.stats();
  await wait(IDLE_MS);
  const i1 = await server.stats();
  const figures: IdleFigures = {
    rssMiB: (i1.rss - b1.rss) / MiB,
    heapMiB: (i1.heap + i1.external - b1.heap - b1.external) / MiB,
    heapTotalMiB: (i1.heapTotal - b1.heapTotal) / MiB,
    cpuPercent: (i1.cpuMs - i0.cpuMs) / IDLE_MS * 100 - baseline.cpuPercent,
    reads: (i1.reads - i0.reads) / (IDLE_MS / 1000) - baseline.readsPerSecond,
    baseline,
  };
  return { figures, streams };
}

async function accounts(base: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) tokens.push(await account(base));
  return tokens;
}

interface ModeFigures {
  mode: string;
  lag: { streams: number; spread: string; max: number; received: string }[];
  idle: IdleFigures[];
}

/** The first run: the idle figures first (on a process that held no stream yet), then lag. */
async function lagRun(poll: boolean, figures: ModeFigures) {
  const server = await startServer(poll ? "poll" : "watch");
  try {
    const tokens = await accounts(server.base, Math.max(...STREAM_COUNTS));
    console.error(`${figures.mode}: ${tokens.length} accounts`);
    let received = 0;
    let lags = new Samples();
    const onLag = (ms: number) => {
      received++;
      lags.add(ms);
    };
    const idle = await idleRun(server, tokens.slice(0, IDLE_STREAMS), onLag);
    figures.idle.push(idle.figures);
    for (const stream of idle.streams) stream.close();
    await wait(2000);
    const streams: { close(): void }[] = [];
    for (const count of STREAM_COUNTS) {
      while (streams.length < count) {
        streams.push(await openStream(server.base, tokens[streams.length], onLag));
      }
      console.error(`${figures.mode}: ${count} streams open`);
      lags = new Samples();
      const got = await measureLag(server.base, tokens.slice(0, count), () => received);
      figures.lag.push({
        streams: count,
        spread: lags.spread(),
        max: lags.max,
        received: `${got}/${EVENTS}`,
      });
    }
    for (const stream of streams) stream.close();
  } finally {
    await server.stop();
  }
}

async function runMode(poll: boolean): Promise<ModeFigures> {
  const figures: ModeFigures = {
    mode: poll ? "polling (watch taken away)" : "watch",
    lag: [],
    idle: [],
  };
  await lagRun(poll, figures);
  for (let run = 1; run < RUNS; run++) {
    const server = await startServer(poll ? "poll" : "watch");
    try {
      const tokens = await accounts(server.base, IDLE_STREAMS);
      const idle = await idleRun(server, tokens, () => {});
      figures.idle.push(idle.figures);
      for (const stream of idle.streams) stream.close();
    } finally {
      await server.stop();
    }
    console.error(`${figures.mode}: idle run ${run + 1} of ${RUNS}`);
  }
  return figures;
}

/** Deno.serve alone with as many open streamed answers: the runtime's own share. */
async function bareRuns(): Promise<ModeFigures> {
  const figures: ModeFigures = { mode: "Deno.serve alone (endless answers)", lag: [], idle: [] };
  for (let run = 0; run < RUNS; run++) {
    const server = await startServer("bare");
    try {
      const idle = await idleRun(server, new Array(IDLE_STREAMS).fill(null), () => {});
      figures.idle.push(idle.figures);
      for (const stream of idle.streams) stream.close();
    } finally {
      await server.stop();
    }
  }
  return figures;
}

/** A figure of every run, lowest first, as "a / b / c" (all alike: once). */
function range(values: number[], digits: number): string {
  const shown = values.toSorted((a, b) => a - b).map((v) => v.toFixed(digits));
  return new Set(shown).size === 1 ? shown[0] : shown.join(" / ");
}

if (import.meta.main) {
  const modes: ModeFigures[] = [];
  if (!ONLY || ONLY === "watch") modes.push(await runMode(false));
  if (!ONLY || ONLY === "poll") modes.push(await runMode(true));
  if (!ONLY || ONLY === "bare") modes.push(await bareRuns());
  requests.close();
  const lagRows = modes.flatMap((m) =>
    m.lag.map((l) => [m.mode, l.streams, l.spread, l.max.toFixed(0), l.received])
  );
  const idleRows = modes.map((m) => {
    const of = (f: (i: IdleFigures) => number, digits: number) => range(m.idle.map(f), digits);
    return [
      m.mode,
      of((i) => i.rssMiB, 1),
      of((i) => i.heapMiB, 1),
      of((i) => i.heapTotalMiB, 1),
      of((i) => i.cpuPercent, 2),
      of((i) => i.reads, 1),
      of((i) => i.reads / IDLE_STREAMS, 3),
      `${of((i) => i.baseline.cpuPercent, 2)}% / ${of((i) => i.baseline.readsPerSecond, 1)}`,
    ];
  });
  const body = [
    "## Delivery lag, raise to client (ms)",
    "",
    `${EVENTS} task.created events, ~20 a second, each for one open stream's account at random ` +
    "(one stream per account). Lag: the client's clock at the frame minus the event's createdAt " +
    "(taken before its commit, so it covers the commit too). Goal: within 1 s (1,000 ms).",
    "",
    markdownTable(["mode", "open streams", "p50 / p99", "max", "received"], lagRows),
    "",
    `## 1,000 idle streams (one account each), over 20 s, beyond the instance with none (${RUNS} ` +
    "fresh processes, each run's figure, lowest first)",
    "",
    markdownTable([
      "mode",
      "extra RSS MiB (goal < 50)",
      "extra heap used + external MiB (goal < 50)",
      "extra V8 heap committed MiB",
      "extra CPU % of a core (goal < 5)",
      "extra KV reads/s",
      "KV reads/s per stream (goal: 0 where watch exists)",
      "no-stream baseline (CPU, reads/s)",
    ], idleRows),
    "",
    "Goals (issue 42): lag within 1 s; under 50 MiB and 5% of a core for 1,000 idle streams; no " +
    "per-stream polling where watch exists. Deno.serve alone is not the service: its row is what " +
    "the runtime holds for 1,000 open streamed answers (connections, their tasks and buffers), " +
    "the share of the service's figures no code of the service can remove. Stream lease " +
    "renewals (ten leases an atomic every 15 s) are writes, not counted in reads.",
  ].join("\n");
  console.log(body);
  const path = await writeResults({
    name: ONLY ? `live_${ONLY}` : "live",
    command: `deno task bench:live${RUNS === 3 ? "" : ` --runs=${RUNS}`}${
      ONLY ? ` --only=${ONLY}` : ""
    }`,
    comparedWith: "the same instance holding no stream; Deno.serve alone; the goals of issue 42",
    body,
  });
  console.log(`\nwritten to ${path}`);
}
