/**
 * `deno task bench:fairness [--samples=40] [--slow=1000]`: another account's first delivery while
 * one account has `--slow` deliveries hanging on endpoints that accept and never answer, with the
 * job runner's fair shares (kv/jobs/fair_share.ts) and, in the same run, without them (every lane
 * may hold all 32 slots, as before the shares) and with no slow backlog at all.
 */
import { deliveryPolicy } from "../../domain/settings.ts";
import { MAX_RUNNING, SHARES, type Shares } from "../../kv/jobs/fair_share.ts";
import { startJobs } from "../../kv/jobs/start.ts";
import { numberFlag as flag } from "../lib/flags.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";
import { Samples } from "../lib/samples.ts";
import { bearer, type BenchService, benchService, benchSettings, signUp } from "../lib/service.ts";

const SAMPLES = flag("samples", 40);
const SLOW = flag("slow", 1000);
/** Samples without the shares: each may wait for a hanging attempt's timeout. */
const UNFAIR_SAMPLES = Math.min(SAMPLES, 5);
const ENDPOINTS = 10;
const TIMEOUT = "5s";
const SETTINGS = {
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_TIMEOUT: TIMEOUT,
  RATE_LIMIT_PER_HOUR: 1_000_000_000,
  IDLE_AFTER_SECONDS: 3600,
} as const;
const NO_SHARES: Shares = { account: MAX_RUNNING, endpoint: MAX_RUNNING, retries: MAX_RUNNING };

/** A TCP server that accepts every connection and never answers. */
function neverAnswering() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  let closed = 0;
  let most = 0;
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        conns.push(conn);
        most = Math.max(most, conns.length - closed);
        // The request is read and never answered; the end is the sender giving up.
        void (async () => {
          const buffer = new Uint8Array(4096);
          try {
            while (await conn.read(buffer) !== null) { /* never answered */ }
          } catch { /* closed here at the end */ }
          closed++;
        })();
      }
    } catch { /* closed */ }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/hook`,
    /** Attempts hanging now. */
    get open() {
      return conns.length - closed;
    },
    /** The most hanging at once so far. */
    get most() {
      return most;
    },
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      await accepting;
    },
  };
}

/** A receiver that answers 200 at once and tells when each event id arrived. */
function receiver() {
  const arrived = new Map<string, (at: number) => void>();
  const early = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = JSON.parse(await req.text());
    const at = performance.now();
    const taskId = body.data?.id as string;
    const waiting = arrived.get(taskId);
    if (waiting) waiting(at);
    else early.set(taskId, at);
    return new Response("ok");
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    /** When the task.created of `taskId` arrives. */
    arrival(taskId: string): Promise<number> {
      const at = early.get(taskId);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve) => arrived.set(taskId, resolve));
    },
    close: () => server.shutdown(),
  };
}

const TASK = {
  title: "Water the plants",
  description: "Twice a week",
  budget: 20,
  currency: "EUR",
  location: { type: "city", name: "Paris", countryCode: "FR", coordinates: [2.35, 48.86] },
  requirement: "None",
};

async function json(res: Response) {
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text);
}

async function addEndpoint(svc: BenchService, token: string, url: string) {
  await json(
    await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(token),
      json: { url, events: ["task.created"] },
    }),
  );
}

/** One case: the other account's first deliveries, from its task's answer to the arrival. */
async function measure(options: { slow: number; shares: Shares; samples: number }) {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  await using svc = await benchService({ kv, settings: SETTINGS });
  const jobs = startJobs({
    kv,
    now: svc.deps.now,
    webhooks: deliveryPolicy(benchSettings(SETTINGS)),
    shares: options.shares,
  });
  const hang = neverAnswering();
  const fast = receiver();
  try {
    const slow = await signUp(svc);
    for (let i = 0; i < ENDPOINTS; i++) await addEndpoint(svc, slow.token, `${hang.url}/${i}`);
    // Each task fans out to every endpoint: slow / ENDPOINTS tasks make `slow` deliveries.
    for (let i = 0; i < options.slow / ENDPOINTS; i++) {
      await json(
        await svc.request("/v1/tasks", { method: "POST", headers: bearer(slow.token), json: TASK }),
      );
    }
    const want = Math.min(options.slow, MAX_RUNNING);
    const since = performance.now();
    while (options.slow > 0 && hang.open < Math.min(want, options.shares.account)) {
      if (performance.now() - since > 60_000) throw new Error("the slow deliveries never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    const other = await signUp(svc);
    await addEndpoint(svc, other.token, fast.url);
    const waits = new Samples();
    for (let i = 0; i < options.samples; i++) {
      const t0 = performance.now();
      const task = await json(
        await svc.request("/v1/tasks", {
          method: "POST",
          headers: bearer(other.token),
          json: TASK,
        }),
      );
      waits.add((await fast.arrival(task.id)) - t0);
    }
    return { waits, hanging: hang.most };
  } finally {
    await jobs.stop();
    await hang.close();
    await fast.close();
    kv.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function main() {
  const cases = [
    { label: "no slow backlog", slow: 0, shares: SHARES, samples: SAMPLES },
    { label: "fair shares (this code)", slow: SLOW, shares: SHARES, samples: SAMPLES },
    { label: "no shares (as before)", slow: SLOW, shares: NO_SHARES, samples: UNFAIR_SAMPLES },
  ];
  const rows: (string | number)[][] = [];
  for (const c of cases) {
    const { waits, hanging } = await measure(c);
    rows.push([
      c.label,
      c.slow,
      hanging,
      c.samples,
      waits.at(0.5).toFixed(1),
      waits.at(0.99).toFixed(1),
      waits.max.toFixed(1),
    ]);
    console.log(
      `${c.label}: p50 ${waits.at(0.5).toFixed(1)} ms, p99 ${waits.at(0.99).toFixed(1)} ms`,
    );
  }
  const table = markdownTable(
    [
      "case",
      "slow account's deliveries",
      "its attempts hanging at once (most)",
      "samples",
      "other account's first delivery p50 (ms)",
      "p99 (ms)",
      "max (ms)",
    ],
    rows,
  );
  console.log(table);
  const path = await writeResults({
    name: "fairness",
    command: "deno task bench:fairness",
    comparedWith: `the same runner with no slow backlog, and with no shares (every lane may hold ` +
      `all ${MAX_RUNNING} slots, as before the shares), in the same run; one in-process runner, ` +
      `${ENDPOINTS} endpoints that accept and never answer, WEBHOOK_TIMEOUT ${TIMEOUT}; the other ` +
      `account's task answered, then its task.created timed to a receiver answering at once`,
    body: `${table}\n\nLoad average at the end: ${loadAverage()}.`,
  });
  console.log(`wrote ${path}`);
}

if (import.meta.main) await main();
