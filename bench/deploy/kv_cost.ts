/**
 * `deno task bench:kv-cost`: what the service reads from and writes to KV, counted as Deno Deploy
 * bills it (read units of 4 KiB, write units of 1 KiB; kv/store/meter.ts), per request kind, per
 * second of background work under steady keyed traffic, and per idle minute; then what a day of 1M
 * keyed requests and 10k task creations costs at the given prices; and what background jobs cost
 * (kv/jobs/): a job of its own, a webhook event's fan-out and delivery, the runner's poll while
 * active and the cron's tick when idle. In-process on a KV file; compared against nothing but
 * itself: the table is a price list, not a race. Flags: --samples=50 --seconds=20 --read-price=1.00
 * --write-price=2.50 (USD per million units).
 */
import { deliveryPolicy } from "../../domain/settings.ts";
import { benchSettings } from "../lib/service.ts";
import { commit } from "../../kv/commit.ts";
import { jobHandlers } from "../../kv/jobs/handlers.ts";
import { JobRunner } from "../../kv/jobs/runner.ts";
import { addJob } from "../../kv/jobs/schedule.ts";
import { jobPollTimer, startJobs } from "../../kv/jobs/start.ts";
import type { JobHandlers } from "../../kv/jobs/types.ts";
import { type KvUsage, meter } from "../../kv/store/meter.ts";
import { createApp } from "../../routes/app.ts";
import { createDeps, instanceTimers } from "../../routes/router/deps.ts";
import { benchTaskBody } from "../datasets/http_seed.ts";
import { writeResults } from "../lib/results.ts";
import { type Init, sendJson } from "../lib/send_json.ts";
import { numberFlag as flag } from "../lib/flags.ts";

const SAMPLES = flag("samples", 50);
const SECONDS = flag("seconds", 20);
const READ_PRICE = flag("read-price", 1.0);
const WRITE_PRICE = flag("write-price", 2.5);
/** 1M keyed requests a day, evenly spread. */
const KEYED_PER_SECOND = 1_000_000 / 86_400;

async function main() {
  const dir = await Deno.makeTempDir();
  const metered = meter(await Deno.openKv(`${dir}/kv.sqlite3`));
  const deps = await createDeps(
    metered.kv,
    benchSettings({
      RATE_LIMIT_PER_HOUR: 1_000_000_000,
      ANON_RATE_LIMIT_PER_HOUR: 1_000_000_000,
      KEY_CREATION_PER_MINUTE: 1_000_000,
      IDLE_AFTER_SECONDS: 2,
      WEBHOOK_ALLOW_PRIVATE: "true",
    }),
  );
  const jobs = startJobs({
    kv: metered.kv,
    now: () => deps.now(),
    webhooks: deliveryPolicy(deps.settings),
  });
  const app = createApp(deps);
  const send = (path: string, init?: Init) => sendJson(app, path, init);

  const password = "correct horse battery";
  await send("/v1/users", {
    method: "POST",
    json: { email: "bench@example.com", password, firstName: "Bench" },
  });
  const { token } = await send("/v1/auth/token", {
    method: "POST",
    json: { email: "bench@example.com", password },
  });
  const session = { Authorization: `Bearer ${token}` };
  const { key } = await send("/api/v1/keys", {
    method: "POST",
    headers: session,
    json: {
      name: "bench",
      scopes: ["tasks:read", "tasks:write", "profile:read"],
      expiresInDays: 30,
    },
  });
  const keyed = { "X-API-Key": key };
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) {
    ids.push(
      (await send("/api/v1/tasks", { method: "POST", headers: keyed, json: benchTaskBody(i) }))
        .id,
    );
  }

  interface Kind {
    name: string;
    run: (i: number) => Promise<unknown>;
  }

  let made = 0;
  const kinds: Kind[] = [
    { name: "GET /tasks/:id, anonymous", run: (i) => send(`/api/v1/tasks/${ids[i % 200]}`) },
    {
      name: "GET /tasks/:id, API key",
      run: (i) => send(`/api/v1/tasks/${ids[i % 200]}`, { headers: keyed }),
    },
    { name: "GET /tasks (list), API key", run: () => send("/api/v1/tasks", { headers: keyed }) },
    {
      name: "GET /tasks/explore, 50 km circle",
      run: () => send("/api/v1/tasks/explore?latitude=48.85&longitude=2.35&radiusKm=50"),
    },
    {
      name: "GET /tasks/explore?search=",
      run: () => send("/api/v1/tasks/explore?search=garden"),
    },
    {
      name: "POST /tasks (create)",
      run: (i) =>
        send("/api/v1/tasks", { method: "POST", headers: keyed, json: benchTaskBody(1000 + i) }),
    },
    {
      name: "PATCH /tasks/:id (edit)",
      run: (i) =>
        send(`/api/v1/tasks/${ids[i % 200]}`, {
          method: "PATCH",
          headers: keyed,
          json: { budget: 10 + (i % 50) },
        }),
    },
    {
      name: "POST /v1/auth/token (login)",
      run: () =>
        send("/v1/auth/token", { method: "POST", json: { email: "bench@example.com", password } }),
    },
    {
      name: "POST /api/v1/keys + DELETE (create and revoke)",
      run: async () => {
        const created = await send("/api/v1/keys", {
          method: "POST",
          headers: session,
          json: { name: `k${made++}`, scopes: ["tasks:read"], expiresInDays: 1 },
        });
        await send(`/api/v1/keys/${created.id}`, { method: "DELETE", headers: session });
      },
    },
  ];

  interface Row {
    what: string;
    reads: number;
    readUnits: number;
    readKiB: number;
    writes: number;
    writeUnits: number;
    writeKiB: number;
  }

  function row(what: string, usage: KvUsage, per: number): Row {
    return {
      what,
      reads: usage.reads / per,
      readUnits: usage.readUnits / per,
      readKiB: usage.readBytes / 1024 / per,
      writes: usage.commits / per,
      writeUnits: usage.writeUnits / per,
      writeKiB: usage.writeBytes / 1024 / per,
    };
  }

  const rows: Row[] = [];
  for (const kind of kinds) {
    for (let i = 0; i < 3; i++) await kind.run(i); // warm caches as a live instance has them
    await deps.rateLimiter.sync();
    metered.reset();
    for (let i = 0; i < SAMPLES; i++) await kind.run(i);
    rows.push(row(`${kind.name}: per request`, metered.usage, SAMPLES));
  }

  // Background work of one instance under steady keyed traffic: real timers, real time.
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const perRequest = rows[1];
  const background = instanceTimers(deps).add(jobPollTimer(jobs));
  background.start();
  await sleep(1_000);
  metered.reset();
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < SECONDS * 1000) {
    background.touch();
    await kinds[1].run(sent++);
    const due = started + (sent / KEYED_PER_SECOND) * 1000;
    await sleep(Math.max(0, due - performance.now()));
  }
  const busy = { ...metered.usage };
  const busySeconds = (performance.now() - started) / 1000;
  // What the requests themselves read and wrote is counted above; the rest is the background's.
  const backgroundUsage: KvUsage = {
    reads: busy.reads - perRequest.reads * sent,
    readUnits: busy.readUnits - perRequest.readUnits * sent,
    readBytes: busy.readBytes - perRequest.readKiB * 1024 * sent,
    commits: busy.commits - perRequest.writes * sent,
    writeUnits: busy.writeUnits - perRequest.writeUnits * sent,
    writeBytes: busy.writeBytes - perRequest.writeKiB * 1024 * sent,
  };
  rows.push(row(
    `background, ${KEYED_PER_SECOND.toFixed(1)} keyed req/s: per second`,
    backgroundUsage,
    busySeconds,
  ));

  // An idle instance: after IDLE_AFTER_SECONDS without requests its jobs pause.
  const idleAfterMs = deps.settings.IDLE_AFTER_SECONDS * 1000;
  const idleWatch = Date.now();
  while (!background.idle && Date.now() - idleWatch < idleAfterMs + 5_000) await sleep(200);
  await sleep(200);
  metered.reset();
  const idleStarted = performance.now();
  await sleep(10_000);
  rows.push(row(
    "idle instance: per minute",
    metered.usage,
    (performance.now() - idleStarted) / 60_000,
  ));
  await background.stop();
  const busyRow = rows[rows.length - 2];
  const createRow = rows[5];

  // Jobs. A job on its own: written (in a cause's atomic: its set only), scanned, claimed, run
  // by a handler that does nothing, deleted.
  const noop = () => Promise.resolve();
  const bare = new JobRunner({
    handlers: {
      purge_user: noop,
      webhook_event: noop,
      webhook_delivery: noop,
      api_key_notice: noop,
      task_declines: noop,
      review_window: noop,
      review_published: noop,
      alert_match: noop,
      alert_forget: noop,
      conversation_refresh: noop,
      conversation_titles: noop,
    } satisfies JobHandlers,
    context: { kv: metered.kv, now: Date.now, webhooks: deliveryPolicy(deps.settings) },
  });
  await jobs.stop(); // the service's runner would take the jobs first
  metered.reset();
  for (let i = 0; i < SAMPLES; i++) {
    const op = metered.kv.atomic();
    addJob(op, { kind: "purge_user", userId: `bench-${i}` });
    await commit(op);
    await bare.drain();
  }
  const bareUsage = { ...metered.usage };
  bareUsage.commits -= SAMPLES; // the cause's own commit carries the job
  rows.push(
    row(
      "a job of its own (no-op handler): its set, scans, claim, delete, per job",
      bareUsage,
      SAMPLES,
    ),
  );

  // A webhook event to one endpoint (a second account's, so the rows above raise none): the
  // task's create, then the fan-out job and the delivery job with its POST to a local receiver.
  const receiver = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    await req.body?.cancel();
    return new Response("ok");
  });
  await send("/v1/users", {
    method: "POST",
    json: { email: "hooked@example.com", password, firstName: "Hooked" },
  });
  const hooked = await send("/v1/auth/token", {
    method: "POST",
    json: { email: "hooked@example.com", password },
  });
  const hookedSession = { Authorization: `Bearer ${hooked.token}` };
  await send("/v1/webhooks", {
    method: "POST",
    headers: hookedSession,
    json: { url: `http://127.0.0.1:${receiver.addr.port}/hook`, events: ["task.created"] },
  });
  // Not woken by the creates' commits: its jobs run at the drain, counted apart from the creates.
  const eventJobs = new JobRunner({
    handlers: jobHandlers,
    context: { kv: metered.kv, now: Date.now, webhooks: deliveryPolicy(deps.settings) },
  });
  const createHooked = (i: number) =>
    send("/v1/tasks", { method: "POST", headers: hookedSession, json: benchTaskBody(5000 + i) });
  for (let i = 0; i < 3; i++) await createHooked(i);
  await eventJobs.drain();
  metered.reset();
  for (let i = 0; i < SAMPLES; i++) await createHooked(10 + i);
  const createdOnly = { ...metered.usage };
  metered.reset();
  await eventJobs.drain();
  rows.push(row(
    "POST /tasks with one endpoint: the create, per request",
    createdOnly,
    SAMPLES,
  ));
  rows.push(row(
    "its event's jobs: fan-out, delivery (POST, 2xx), per event",
    metered.usage,
    SAMPLES,
  ));
  await eventJobs.stop();
  await receiver.shutdown();

  // The runner's looks when nothing is due: the active instance's poll (every POLL_MS) and the
  // cron's tick, once a minute, which is all an idle instance costs.
  metered.reset();
  for (let i = 0; i < SAMPLES; i++) await bare.scan();
  const scan = { ...metered.usage };
  rows.push(row(
    `active instance's job poll, nothing due: per minute (${
      60_000 / jobPollTimer(bare).everyMs
    } looks)`,
    scan,
    SAMPLES / (60_000 / jobPollTimer(bare).everyMs),
  ));
  metered.reset();
  for (let i = 0; i < SAMPLES; i++) await bare.drain();
  rows.push(row("cron tick, nothing due: per minute (idle or not)", metered.usage, SAMPLES));
  await bare.stop();

  // A day: 1M keyed reads (GET /tasks/:id), 10k creates, one instance busy all day.
  const day = {
    readUnits: 1_000_000 * rows[1].readUnits + 10_000 * createRow.readUnits +
      86_400 * busyRow.readUnits,
    writeUnits: 1_000_000 * rows[1].writeUnits + 10_000 * createRow.writeUnits +
      86_400 * busyRow.writeUnits,
  };
  const dayCost = (day.readUnits * READ_PRICE + day.writeUnits * WRITE_PRICE) / 1_000_000;

  const fmt = (n: number) => n < 10 ? n.toFixed(2) : n.toFixed(0);
  const header = "| what | reads | read units | KiB read | commits | write units | KiB written |";
  const lines = [
    header,
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) =>
      `| ${r.what} | ${fmt(r.reads)} | ${fmt(r.readUnits)} | ${fmt(r.readKiB)} | ${
        fmt(r.writes)
      } | ${fmt(r.writeUnits)} | ${fmt(r.writeKiB)} |`
    ),
    "",
    `A day of 1M keyed GET /tasks/:id and 10k creates on one instance busy all day (its background ` +
    `included): ${(day.readUnits / 1e6).toFixed(2)}M read units, ${
      (day.writeUnits / 1e6).toFixed(2)
    }M write units: $${dayCost.toFixed(2)} a day, $${(dayCost * 30).toFixed(2)} a month at ` +
    `$${READ_PRICE.toFixed(2)} per million read units and $${WRITE_PRICE.toFixed(2)} per million ` +
    `write units. Each further instance kept busy adds the background row again (its job poll ` +
    `included); an idle one adds nothing but the cron's tick.`,
  ];
  console.log(lines.join("\n"));
  await writeResults({
    name: "kv_cost",
    command: "deno task bench:kv-cost",
    comparedWith: "nothing: a price list of the service's own KV use. In-process app on a KV " +
      `file, ${SAMPLES} requests of each kind after 3 warm-up ones; the background measured over ` +
      `${SECONDS} s of ${KEYED_PER_SECOND.toFixed(1)} keyed GET /tasks/:id a second with real ` +
      "timers, minus those requests' own reads and writes; the idle instance over 10 s after its " +
      "jobs paused; the job rows from " + SAMPLES + " jobs, events, polls and cron ticks each. " +
      "Units as Deno Deploy bills KV: a read unit is 4 KiB of one call's keys and " +
      "values, a write unit 1 KiB of one key written (sizes estimated from JSON, kv/store/meter.ts)",
    body: lines.join("\n"),
  });
  metered.kv.close();
  await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) await main();
