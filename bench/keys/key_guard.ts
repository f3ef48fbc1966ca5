/**
 * `deno task bench:key-guard`: what the per-request key check costs, against the code this branch
 * started from (the merge base with main, extracted by `git archive`), in one process.
 * (1) Round trips: every KV call delayed by a fixed latency, as on Deno Deploy; per request kind,
 * the KV calls made and the round trips in sequence. (2) CPU: a keyed GET of a
 * task by id on an in-memory store, A and B alternated in rounds, min and median per request.
 * Flags: --delay=20 (ms) --rounds=40 --batch=200 --base=<git ref>.
 */
import { BENCH_SETTINGS } from "../lib/bench_settings.ts";
import { codePath, extractCommit } from "../lib/extract.ts";
import { numberFlag } from "../lib/flags.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";

const DELAY_MS = numberFlag("delay", 20);
const ROUNDS = numberFlag("rounds", 40);
const BATCH = numberFlag("batch", 200);
const BASE_REF = Deno.args.find((a) => a.startsWith("--base="))?.slice(7) ?? "";
const ROOT = new URL("../..", import.meta.url).pathname;
const FROZEN = Date.parse("2030-01-01T00:00:00Z");

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: ROOT, stdout: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed`);
  return new TextDecoder().decode(out.stdout).trim();
}

interface Counts {
  calls: number;
  /** When each delayed call started and ended (ms, performance.now). */
  spans: [number, number][];
}

/**
 * Round trips in sequence among `spans`: the most calls of which each began after the one before
 * ended (greedy by end time). Calls made together overlap and count once, however loaded the CPU.
 */
function inSequence(spans: [number, number][]): number {
  let count = 0;
  let end = -Infinity;
  for (const [start, stop] of [...spans].sort((a, b) => a[1] - b[1])) {
    if (start >= end) {
      count++;
      end = stop;
    }
  }
  return count;
}

/** A store whose every call (get, getMany, a list's first batch, a commit) waits `delay` first. */
function delayed(inner: Deno.Kv, delay: number, counts: Counts): Deno.Kv {
  const wait = async () => {
    counts.calls++;
    const start = performance.now();
    await new Promise((r) => setTimeout(r, delay));
    counts.spans.push([start, performance.now()]);
  };
  const wrapAtomic = (op: Deno.AtomicOperation): Deno.AtomicOperation =>
    new Proxy(op, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (typeof value !== "function") return value;
        if (name === "commit") return async () => (await wait(), target.commit());
        return (...args: unknown[]) => {
          const result = value.apply(target, args);
          return result === target ? wrapAtomic(target) : result;
        };
      },
    });
  return new Proxy(inner, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      switch (name) {
        case "get":
        case "getMany":
          return async (...args: unknown[]) => (await wait(), value.apply(target, args));
        case "list":
          return (...args: unknown[]) => {
            const iterator = value.apply(target, args) as Deno.KvListIterator<unknown>;
            let first = true;
            const next = async () => {
              if (first) await wait();
              first = false;
              return iterator.next();
            };
            return {
              next,
              get cursor() {
                return iterator.cursor;
              },
              [Symbol.asyncIterator]() {
                return this;
              },
              return: () =>
                (iterator as AsyncIterator<unknown>).return?.() ??
                  Promise.resolve({ done: true, value: undefined }),
            };
          };
        case "atomic":
          return () => wrapAtomic(target.atomic());
        default:
          return value.bind(target);
      }
    },
  });
}

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

interface Variant {
  name: string;
  fetch: Fetch;
  counts: Counts;
  /** Switches the store's delay on (after seeding) or off. */
  setDelay(ms: number): void;
  key: string;
  taskId: string;
}

/** A service built from the code under `root`, seeded with an account, a key and a task. */
async function variant(name: string, root: string): Promise<Variant> {
  const { createApp } = await import(`${root}/routes/app.ts`);
  const { createDeps } = await import(codePath(root, "routes/router/deps.ts", "routes/deps.ts"));
  // Each commit's own settings schema, given the benches' values (every commit since the bench
  // began exports `Settings`).
  const { Settings } = await import(`${root}/domain/settings.ts`);
  const inner = await Deno.openKv(":memory:");
  const counts: Counts = { calls: 0, spans: [] };
  let delay = 0;
  const kv = new Proxy(inner, {
    get(_, name) {
      const source = delay > 0 ? delayed(inner, delay, counts) : inner;
      const value = Reflect.get(source, name, source);
      return typeof value === "function" ? value.bind(source) : value;
    },
  });
  const settings = Settings.parse({
    ...BENCH_SETTINGS,
    RATE_LIMIT_PER_HOUR: 1_000_000_000,
    ANON_RATE_LIMIT_PER_HOUR: 1_000_000_000,
    KEY_CREATION_PER_MINUTE: 1_000_000,
  });
  const deps = await createDeps(kv, settings, { now: () => FROZEN });
  const app = createApp(deps);
  const fetch: Fetch = (path, init = {}) =>
    Promise.resolve(app.request(path, init, {
      remoteAddr: { hostname: "203.0.113.10", port: 40000, transport: "tcp" },
    }));
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const email = `bench-${name}@example.com`;
  const password = "correct horse battery";
  await fetch("/v1/users", {
    method: "POST",
    ...json({ email, password, firstName: "Bench" }),
  });
  const { token } = await (await fetch("/v1/auth/token", {
    method: "POST",
    ...json({ email, password }),
  })).json();
  const auth = { Authorization: `Bearer ${token}` };
  const created = await (await fetch("/api/v1/keys", {
    method: "POST",
    ...json({
      name: "bench",
      scopes: ["tasks:read", "tasks:write", "profile:read"],
      expiresAt: new Date(FROZEN + 86_400_000).toISOString(),
    }, auth),
  })).json();
  const posted = await fetch("/api/v1/tasks", { method: "POST", ...json(taskBody(), auth) });
  const task = await posted.json();
  if (posted.status !== 201) throw new Error(`${name}: seeding failed: ${JSON.stringify(task)}`);
  return {
    name,
    fetch,
    counts,
    setDelay: (ms) => delay = ms,
    key: created.key,
    taskId: task.id,
  };
}

function taskBody() {
  return {
    title: "Fix the kitchen sink",
    description: "The tap drips and the drain is slow.",
    budget: 80,
    currency: "EUR",
    location: { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" },
    requirement: "Bring your own tools",
    dueDate: "2031-05-01",
    maxPeople: 2,
  };
}

interface Kind {
  label: string;
  method: string;
  path: (v: Variant) => string;
  body?: unknown;
  expect: number;
}

const KINDS: Kind[] = [
  {
    label: "GET a task by id",
    method: "GET",
    path: (v) => `/api/v1/tasks/${v.taskId}`,
    expect: 200,
  },
  { label: "GET /v1/users/me", method: "GET", path: () => "/v1/users/me", expect: 200 },
  {
    label: "GET a listing (list)",
    method: "GET",
    path: () => "/api/v1/tasks?limit=20",
    expect: 200,
  },
  {
    label: "GET a streamed listing",
    method: "GET",
    path: () => "/api/v1/tasks/me/created",
    expect: 200,
  },
  {
    label: "HEAD a streamed listing (no read)",
    method: "HEAD",
    path: () => "/api/v1/tasks/me/created",
    expect: 200,
  },
  {
    label: "POST a task",
    method: "POST",
    path: () => "/api/v1/tasks",
    body: taskBody(),
    expect: 201,
  },
];

async function send(v: Variant, kind: Kind): Promise<void> {
  const headers: Record<string, string> = { "X-API-Key": v.key };
  if (kind.body) headers["Content-Type"] = "application/json";
  const res = await v.fetch(kind.path(v), {
    method: kind.method,
    headers,
    body: kind.body ? JSON.stringify(kind.body) : undefined,
  });
  await res.arrayBuffer();
  if (res.status !== kind.expect) throw new Error(`${v.name} ${kind.label}: ${res.status}`);
}

/** KV calls and round trips in sequence of one request of `kind`, the key cached. */
async function roundTrips(v: Variant, kind: Kind) {
  await send(v, kind); // the key and the author cached
  v.setDelay(DELAY_MS);
  const samples: { calls: number; ms: number; sequential: number }[] = [];
  for (let i = 0; i < 5; i++) {
    const before = v.counts.calls;
    v.counts.spans = [];
    const started = performance.now();
    await send(v, kind);
    samples.push({
      calls: v.counts.calls - before,
      ms: performance.now() - started,
      sequential: inSequence(v.counts.spans),
    });
  }
  v.setDelay(0);
  samples.sort((a, b) => a.ms - b.ms);
  return samples[2];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const ref = BASE_REF || await git(["merge-base", "HEAD", "main"]);
  const baseDir = await extractCommit(ref, ["main.ts", "routes", "domain", "kv", "io"]);
  try {
    const base = await variant("base", baseDir);
    const guard = await variant("guard", ROOT.replace(/\/$/, ""));
    const loadBefore = loadAverage();

    const tripRows: (string | number)[][] = [];
    for (const kind of KINDS) {
      const a = await roundTrips(base, kind);
      const b = await roundTrips(guard, kind);
      tripRows.push([
        kind.label,
        a.calls,
        b.calls,
        a.sequential,
        b.sequential,
        a.ms.toFixed(1),
        b.ms.toFixed(1),
      ]);
    }

    const byId = KINDS[0];
    const perRequest: Record<string, number[]> = { base: [], guard: [] };
    for (let i = 0; i < 200; i++) await Promise.all([send(base, byId), send(guard, byId)]);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [base, guard] : [guard, base];
      for (const v of order) {
        const started = performance.now();
        for (let i = 0; i < BATCH; i++) await send(v, byId);
        perRequest[v.name].push((performance.now() - started) * 1000 / BATCH);
      }
    }
    const cpuRows = (["base", "guard"] as const).map((name) => [
      name === "base" ? `A: ${ref.slice(0, 7)}` : "B: this code",
      Math.min(...perRequest[name]).toFixed(1),
      median(perRequest[name]).toFixed(1),
    ]);
    const ratio = median(perRequest.guard) / median(perRequest.base);

    // What the store alone charges for one more key in the read, beside the service's own cost.
    using raw = await Deno.openKv(":memory:");
    await raw.set(["task"], taskBody());
    await raw.set(["key"], { scopes: ["tasks:read"], name: "bench" });
    const rawUs: Record<string, number[]> = { get: [], getMany: [] };
    for (let round = 0; round < ROUNDS; round++) {
      let started = performance.now();
      for (let i = 0; i < BATCH; i++) await raw.get(["task"]);
      rawUs.get.push((performance.now() - started) * 1000 / BATCH);
      started = performance.now();
      for (let i = 0; i < BATCH; i++) await raw.getMany([["task"], ["key"]]);
      rawUs.getMany.push((performance.now() - started) * 1000 / BATCH);
    }

    const body = [
      `## Round trips per keyed request (every KV call delayed ${DELAY_MS} ms)`,
      "",
      "The key cached on the instance, as on the hot path; the median of 5 requests. Sequential:",
      "the most calls of which each began after the one before ended.",
      "",
      markdownTable(
        ["request", "KV calls A", "KV calls B", "sequential A", "sequential B", "ms A", "ms B"],
        tripRows,
      ),
      "",
      `## CPU: keyed GET of a task by id, in process, ${ROUNDS} alternated rounds of ${BATCH}`,
      "",
      markdownTable(["variant", "min µs/request", "median µs/request"], cpuRows),
      "",
      `B/A (medians): ${ratio.toFixed(3)}. Load average before: ${loadBefore}.`,
      "",
      "The store alone, same rounds: one more key in the read.",
      "",
      markdownTable(["read", "min µs", "median µs"], [
        ["kv.get(task)", Math.min(...rawUs.get).toFixed(1), median(rawUs.get).toFixed(1)],
        [
          "kv.getMany([task, key])",
          Math.min(...rawUs.getMany).toFixed(1),
          median(rawUs.getMany).toFixed(1),
        ],
      ]),
    ].join("\n");
    console.log(body);
    const path = await writeResults({
      name: "key_guard",
      command: "deno task bench:key-guard",
      comparedWith: `the code at ${ref.slice(0, 12)} (merge base with main), same process`,
      body,
    });
    console.log(`\nwritten to ${path}`);
  } finally {
    await Deno.remove(baseDir, { recursive: true });
  }
}

if (import.meta.main) await main();
