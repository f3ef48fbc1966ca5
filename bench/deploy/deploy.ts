/**
 * `deno task bench:deploy [--tasks=2000] [--samples=15]`: the KV round trips each request kind
 * waits for in sequence when every KV call is a network round trip, as on Deno Deploy
 * (bench/lib/latency_app.ts at 0, 25 and 90 ms a call), through the real app (app.request) of a live
 * instance with its background jobs running, and of cold instances answering their first request.
 */
import { benchSettings } from "../lib/service.ts";
import { checkIndexLayout } from "../../kv/tasks/index_layout.ts";
import { createDeps } from "../../routes/router/deps.ts";
import { createApp } from "../../routes/app.ts";
import { generateTask } from "../datasets/explore_data.ts";
import { queryKinds, queryString } from "../datasets/explore_data_queries.ts";
import { loadTasks } from "../explore/explore_load.ts";
import { benchTaskBody } from "../datasets/http_seed.ts";
import { numberFlag as flag } from "../lib/flags.ts";
import { latencyApp, TripSamples } from "../lib/latency_app.ts";
import { type App, peer } from "../lib/send_json.ts";
import { loadAverage, writeResults } from "../lib/results.ts";

const TASKS = flag("tasks", 2000);
const SAMPLES = flag("samples", 15);
const DELAYS = [0, 25, 90];
const AUTHORS = 10;

const settings = benchSettings({
  RATE_LIMIT_PER_HOUR: 1_000_000_000,
  ANON_RATE_LIMIT_PER_HOUR: 1_000_000_000,
  KEY_CREATION_PER_MINUTE: 1_000_000,
  IDLE_AFTER_SECONDS: 3600,
});

async function main() {
  await using instance = await latencyApp(settings, checkIndexLayout);
  const { raw, slow, deps, app, background, send, sendTo } = instance;

  console.log(`seeding ${AUTHORS} accounts and ${TASKS} tasks…`);
  const authors: string[] = [];
  let session = {};
  for (let a = 0; a < AUTHORS; a++) {
    const credentials = { email: `author${a}@example.com`, password: "deploy bench password" };
    const user = await send("/v1/users", {
      method: "POST",
      json: { ...credentials, firstName: `Author ${a}` },
    });
    authors.push(user.id);
    if (a === 0) {
      const { token } = await send("/v1/auth/token", { method: "POST", json: credentials });
      session = { Authorization: `Bearer ${token}` };
    }
  }
  const { key } = await send("/api/v1/keys", {
    method: "POST",
    headers: session,
    json: { name: "deploy", scopes: ["tasks:read", "tasks:write"], expiresInDays: 30 },
  });
  const keyed = { "X-API-Key": key };
  await loadTasks(raw, TASKS, (i) => ({ ...generateTask(i, TASKS), userId: authors[i % AUTHORS] }));
  /** Published tasks of several authors, the newest first. */
  const ids = Array.from({ length: 50 }, (_, k) => generateTask(TASKS - 1 - k, TASKS).id);
  const ownIds = ids.filter((_, k) => (TASKS - 1 - k) % AUTHORS === 0);
  const firstPage = await send("/api/v1/tasks?limit=20", { headers: keyed });
  const cursor = (await app.request("/api/v1/tasks?limit=20", { headers: keyed }, peer)).headers
    .get("X-Next-Cursor");
  if (firstPage.length !== 20 || !cursor) throw new Error("the seeded user has too few tasks");

  interface Kind {
    name: string;
    /** Run outside the trace before each sample (e.g. empty a cache). */
    before?: () => void;
    run: (i: number) => Promise<unknown>;
    /** Answered by a fresh instance, its first request. */
    cold?: boolean;
  }

  let created = 0;
  const explore = queryKinds(SAMPLES + 2).filter((kind) =>
    !/500 km|region viewport|antimeridian/.test(kind.name)
  );
  const kinds: Kind[] = [
    { name: "GET /tasks/:id, anonymous", run: (i) => send(`/api/v1/tasks/${ids[i % 50]}`) },
    {
      name: "GET /tasks/:id, anonymous, author not cached",
      before: () => deps.userCache.clear(),
      run: (i) => send(`/api/v1/tasks/${ids[i % 50]}`),
    },
    {
      name: "GET /tasks/:id, API key",
      run: (i) => send(`/api/v1/tasks/${ownIds[i % ownIds.length]}`, { headers: keyed }),
    },
    {
      name: "GET /tasks (list page), API key",
      run: () => send("/api/v1/tasks", { headers: keyed }),
    },
    {
      name: "GET /tasks?cursor (page 2), API key",
      run: () => send(`/api/v1/tasks?limit=20&cursor=${cursor}`, { headers: keyed }),
    },
    {
      name: "GET /tasks/me/status, API key",
      run: () => send("/api/v1/tasks/me/status?limit=20", { headers: keyed }),
    },
    {
      name: "GET /tasks (list page), session",
      run: () => send("/api/v1/tasks", { headers: session }),
    },
    {
      name: "POST /tasks (create), API key",
      run: () =>
        send("/api/v1/tasks", {
          method: "POST",
          headers: keyed,
          json: benchTaskBody(created++),
        }),
    },
    {
      name: "POST /tasks with Idempotency-Key",
      run: () =>
        send("/api/v1/tasks", {
          method: "POST",
          headers: { ...keyed, "Idempotency-Key": `deploy-${created}` },
          json: benchTaskBody(created++),
        }),
    },
    {
      name: "PATCH /tasks/:id, API key",
      run: (i) =>
        send(`/api/v1/tasks/${ownIds[i % ownIds.length]}`, {
          method: "PATCH",
          headers: keyed,
          json: { budget: 10 + (i % 50) },
        }),
    },
    ...explore.map((kind): Kind => ({
      name: `explore: ${kind.name}`,
      run: (i) => send(`/api/v1/tasks/explore?${queryString(kind.queries[i])}`),
    })),
    {
      name: "explore: geo 10 km, API key",
      run: (i) =>
        send(`/api/v1/tasks/explore?${queryString(explore[1].queries[i])}`, {
          headers: keyed,
        }),
    },
    {
      name: "cold instance: first request, API key (GET /tasks/:id)",
      cold: true,
      run: (i) =>
        coldApp.then((fresh) =>
          sendTo(fresh, `/api/v1/tasks/${ownIds[i % ownIds.length]}`, { headers: keyed })
        ),
    },
    {
      name: "cold instance: first request, API key (GET /tasks)",
      cold: true,
      run: () => coldApp.then((fresh) => sendTo(fresh, "/api/v1/tasks", { headers: keyed })),
    },
    {
      name: "cold instance: first request, anonymous (GET /tasks/:id)",
      cold: true,
      run: (i) => coldApp.then((fresh) => sendTo(fresh, `/api/v1/tasks/${ids[i % 50]}`)),
    },
  ];

  /** The app of a fresh instance, built outside the trace (its start-up reads are not a request's). */
  let coldApp: Promise<App> = Promise.resolve(app);
  async function freshInstance(): Promise<App> {
    // As main.ts starts on Deploy without JWT_SECRET set: the secret and the layout are read first.
    const [fresh] = await Promise.all([
      createDeps(slow.kv, { ...settings, JWT_SECRET: undefined }),
      checkIndexLayout(slow.kv),
    ]);
    return createApp(fresh);
  }
  const STARTUP = "cold instance: start-up before serving (main.ts: createDeps, index layout)";

  const results = new TripSamples(DELAYS);
  background.start();
  for (const delay of DELAYS) {
    await instance.settle(delay);
    // Every author read once, as a live instance's user cache holds the authors it serves.
    for (const id of ids) await send(`/api/v1/tasks/${id}`);
    for (const kind of kinds) {
      for (let i = 0; i < SAMPLES + 2; i++) {
        kind.before?.();
        if (kind.cold) {
          const started = performance.now();
          const boot = await slow.traced(freshInstance);
          coldApp = Promise.resolve(boot.value);
          results.record(STARTUP, delay, { trips: boot.trips, ms: performance.now() - started });
        }
        background.touch();
        const started = performance.now();
        const { trips } = await slow.traced(() => kind.run(i));
        const ms = performance.now() - started;
        // Two warm-ups for a live instance; every cold instance is a sample.
        if (i >= 2 || kind.cold) results.record(kind.name, delay, { trips, ms });
      }
    }
  }
  const table = results.table({ slopes: true });
  const body = [
    `${TASKS} tasks of ${AUTHORS} authors (bench/datasets/explore_data.ts's everyday tasks, loaded through`,
    "kv/), 2 warm-up requests then " +
    `${SAMPLES} samples a kind; cold rows: a new instance each sample.`,
    "Round trips are sequential waits (kv/store/latency.ts): the longest chain of KV calls each made after",
    "the one before answered; calls in flight together count once, a list once per batch fetched.",
    "The last columns estimate the same from wall time: how many delays the request took longer than",
    "at 0 ms.",
    "",
    table,
    "",
    `Load average after the run: ${loadAverage()}.`,
  ].join("\n");
  console.log(`\n${table}\n`);
  const path = await writeResults({
    name: "deploy",
    command: `deno task bench:deploy --tasks=${TASKS} --samples=${SAMPLES}`,
    comparedWith:
      "the same requests at 0 ms a call, and issue 28's targets (GET by id and list pages 1 round " +
      "trip, create 2, explore 2, a cold instance's first keyed request 3)",
    body,
  });
  console.log(`written to ${path}`);
}

if (import.meta.main) await main();
