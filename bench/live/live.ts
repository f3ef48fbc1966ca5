/**
 * bench:live: live event streams on one instance (bench/live/live_server.ts in its own process),
 * with the store's watch and with polling. Delivery lag from an event's raising to the client with
 * 1, 100 and 1,000 open streams (one account each); the extra memory and CPU of 1,000 idle streams;
 * the KV reads an idle stream costs. Compared with the same instance holding no stream (its own
 * background work) and with the goals of issue 42 (lag within 1 s; under 50 MiB and 5% of a core for
 * 1,000 idle streams; no per-stream polling where watch exists).
 */
import { markdownTable, writeResults } from "../lib/results.ts";
import { Samples } from "../lib/samples.ts";
import { taskBody } from "../datasets/task_body.ts";

const STREAM_COUNTS = [1, 100, 1000];
const EVENTS = 100;
const IDLE_MS = 20_000;
const MiB = 1024 * 1024;

interface Stats {
  rss: number;
  heap: number;
  external: number;
  cpuMs: number;
  reads: number;
  feedReads: number;
  streams: number;
}

/** The service process, with its stats on request. */
async function startServer(poll: boolean) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--v8-flags=--expose-gc",
      new URL("./live_server.ts", import.meta.url).pathname,
      ...(poll ? ["--poll"] : []),
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
async function openStream(base: string, token: string, onLag: (ms: number) => void) {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/v1/events/stream`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
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

interface ModeFigures {
  mode: string;
  lag: { streams: number; spread: string; max: number; received: string }[];
  idle: {
    rssMiB: number;
    heapMiB: number;
    cpuPercent: number;
    readsPerStream: number;
    reads: number;
  };
  baseline: { cpuPercent: number; readsPerSecond: number };
}

async function runMode(poll: boolean): Promise<ModeFigures> {
  const server = await startServer(poll);
  try {
    const tokens: string[] = [];
    for (let i = 0; i < Math.max(...STREAM_COUNTS); i++) tokens.push(await account(server.base));
    console.error(`${poll ? "poll" : "watch"}: ${tokens.length} accounts`);
    // The instance idle with no stream: its own background work, to subtract.
    await new Promise((r) => setTimeout(r, 3000));
    const b0 = await server.stats();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const b1 = await server.stats();
    const baseline = {
      cpuPercent: (b1.cpuMs - b0.cpuMs) / IDLE_MS * 100,
      readsPerSecond: (b1.reads - b0.reads) / (IDLE_MS / 1000),
    };
    const streams: { close(): void }[] = [];
    let received = 0;
    let lags = new Samples();
    const onLag = (ms: number) => {
      received++;
      lags.add(ms);
    };
    const figures: ModeFigures = {
      mode: poll ? "polling (watch taken away)" : "watch",
      lag: [],
      idle: { rssMiB: 0, heapMiB: 0, cpuPercent: 0, readsPerStream: 0, reads: 0 },
      baseline,
    };
    for (const count of STREAM_COUNTS) {
      while (streams.length < count) {
        streams.push(await openStream(server.base, tokens[streams.length], onLag));
      }
      if (count === Math.max(...STREAM_COUNTS)) {
        console.error("idle window");
        await new Promise((r) => setTimeout(r, 3000));
        const i0 = await server.stats();
        await new Promise((r) => setTimeout(r, IDLE_MS));
        const i1 = await server.stats();
        const cpu = (i1.cpuMs - i0.cpuMs) / IDLE_MS * 100 - baseline.cpuPercent;
        const reads = (i1.reads - i0.reads) / (IDLE_MS / 1000) - baseline.readsPerSecond;
        figures.idle = {
          rssMiB: (i1.rss - b1.rss) / MiB,
          heapMiB: (i1.heap + i1.external - b1.heap - b1.external) / MiB,
          cpuPercent: cpu,
          readsPerStream: reads / count,
          reads,
        };
      }
      console.error(`${poll ? "poll" : "watch"}: ${count} streams open`);
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
    return figures;
  } finally {
    await server.stop();
  }
}

if (import.meta.main) {
  const modes = [await runMode(false), await runMode(true)];
  requests.close();
  const lagRows = modes.flatMap((m) =>
    m.lag.map((l) => [m.mode, l.streams, l.spread, l.max.toFixed(0), l.received])
  );
  const idleRows = modes.map((m) => [
    m.mode,
    m.idle.rssMiB.toFixed(1),
    m.idle.heapMiB.toFixed(1),
    m.idle.cpuPercent.toFixed(2),
    m.idle.reads.toFixed(1),
    m.idle.readsPerStream.toFixed(3),
    `${m.baseline.cpuPercent.toFixed(2)}% / ${m.baseline.readsPerSecond.toFixed(1)}`,
  ]);
  const body = [
    "## Delivery lag, raise to client (ms)",
    "",
    `${EVENTS} task.created events, ~20 a second, each for one open stream's account at random ` +
    "(one stream per account). Lag: the client's clock at the frame minus the event's createdAt " +
    "(taken before its commit, so it covers the commit too).",
    "",
    markdownTable(["mode", "open streams", "p50 / p99", "max", "received"], lagRows),
    "",
    "## 1,000 idle streams (one account each), over 20 s, beyond the instance with none",
    "",
    markdownTable([
      "mode",
      "extra RSS MiB",
      "extra heap + external MiB",
      "extra CPU % of a core",
      "extra KV reads/s",
      "KV reads/s per stream",
      "no-stream baseline (CPU, reads/s)",
    ], idleRows),
    "",
    "Goals (issue 42): lag within 1 s; under 50 MiB and 5% of a core for 1,000 idle streams; no " +
    "per-stream polling where watch exists. Stream lease renewals (ten leases an atomic every " +
    "15 s) are writes, not counted in reads.",
  ].join("\n");
  console.log(body);
  const path = await writeResults({
    name: "live",
    command: "deno task bench:live",
    comparedWith: "the same instance holding no stream; the goals of issue 42",
    body,
  });
  console.log(`\nwritten to ${path}`);
}
