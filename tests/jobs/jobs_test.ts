/**
 * The job runner (kv/jobs/): written with its cause or not at all, run when due and not before,
 * claimed by one runner at a time under a lease, run again when a dead runner's lease ends,
 * rescheduled by its handler or after a failure. The clock is injected: due times and leases
 * are crossed by moving it, not by waiting.
 */
import assert from "node:assert/strict";
import { deliveryPolicy } from "../../domain/settings.ts";
import { testSettings } from "../settings_fixtures.ts";
import { commit } from "../../kv/commit.ts";
import { jobs } from "../../kv/keyspace.ts";
import { claimJob, finishJob, renewLease } from "../../kv/jobs/lease.ts";
import { JobRunner } from "../../kv/jobs/runner.ts";
import { addJob } from "../../kv/jobs/schedule.ts";
import { jobWritten } from "../../kv/jobs/wake.ts";
import { until } from "../wait.ts";
import type { JobHandlers, JobOutcome, JobPayload, JobRecord } from "../../kv/jobs/types.ts";

const T0 = Date.parse("2030-01-01T00:00:00Z");

/** A store, a clock and runners whose every handler calls `handle`. */
async function bench(handle: (p: JobPayload) => Promise<JobOutcome> = () => Promise.resolve()) {
  const kv = await Deno.openKv(":memory:");
  const clock = { now: T0 };
  const runs: JobPayload[] = [];
  const run = (_: unknown, p: JobPayload) => {
    runs.push(p);
    return handle(p);
  };
  const handlers: JobHandlers = {
    purge_user: run,
    webhook_event: run,
    webhook_delivery: run,
    api_key_notice: run,
    task_declines: run,
    review_window: run,
    review_published: run,
    alert_match: run,
    alert_forget: run,
    conversation_refresh: run,
    conversation_titles: run,
  };
  const runners: JobRunner[] = [];
  const runner = (leaseMs = 10_000, store: Deno.Kv = kv) => {
    const r = new JobRunner({
      handlers,
      context: { kv: store, now: () => clock.now, webhooks: deliveryPolicy(testSettings()) },
      leaseMs,
    });
    runners.push(r);
    return r;
  };
  return {
    kv,
    clock,
    runs,
    runner,
    async [Symbol.asyncDispose]() {
      for (const r of runners) await r.stop();
      kv.close();
    },
  };
}

async function stored(kv: Deno.Kv) {
  const found: { due: number; record: JobRecord }[] = [];
  for await (const e of kv.list<JobRecord>({ prefix: jobs.start() })) {
    found.push({ due: e.key[1] as number, record: e.value });
  }
  return found;
}

const purge = (userId: string): JobPayload => ({ kind: "purge_user", userId });

Deno.test("a job exists exactly when the atomic of its cause commits", async () => {
  await using b = await bench();
  const cause = ["cause"];
  const ok = b.kv.atomic().check({ key: cause, versionstamp: null }).set(cause, 1);
  addJob(ok, purge("a"));
  assert.ok((await commit(ok)).ok);
  const refused = b.kv.atomic().check({ key: cause, versionstamp: null }).set(cause, 2);
  addJob(refused, purge("b"));
  assert.equal((await commit(refused)).ok, false);
  assert.deepEqual((await stored(b.kv)).map((j) => j.record.payload), [purge("a")]);
});

Deno.test("a job runs when due, not before, and is deleted after its run", async () => {
  await using b = await bench();
  const op = b.kv.atomic();
  addJob(op, purge("later"), T0 + 60_000);
  await commit(op);
  const runner = b.runner();
  await runner.drain();
  assert.deepEqual(b.runs, [], "not due yet");
  b.clock.now = T0 + 60_000;
  await runner.drain();
  assert.deepEqual(b.runs, [purge("later")]);
  assert.deepEqual(await stored(b.kv), []);
});

Deno.test("a job committed in this process wakes its runner without a poll", async () => {
  await using b = await bench();
  b.runner().listen();
  const op = b.kv.atomic();
  addJob(op, purge("now"), T0);
  await commit(op);
  const since = Date.now();
  while (b.runs.length === 0) {
    if (Date.now() - since > 10_000) throw new Error("the runner was not woken");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.deepEqual(b.runs, [purge("now")]);
});

Deno.test("many runners scanning at once: each job runs once", async () => {
  await using b = await bench();
  for (let i = 0; i < 20; i++) {
    const op = b.kv.atomic();
    addJob(op, purge(`u${i}`), T0);
    await commit(op);
  }
  const runners = Array.from({ length: 4 }, () => b.runner());
  await Promise.all(runners.map((r) => r.drain()));
  assert.equal(b.runs.length, 20);
  assert.equal(new Set(b.runs.map((p) => (p as { userId: string }).userId)).size, 20);
  assert.deepEqual(await stored(b.kv), []);
});

Deno.test("a claimed job is held until its lease ends, then runs again (its runner died)", async () => {
  await using b = await bench();
  const op = b.kv.atomic();
  addJob(op, purge("held"), T0);
  await commit(op);
  const [job] = await stored(b.kv);
  const entry = await b.kv.get<JobRecord>(jobs.entry(job.due, job.record.id));
  // A runner claims it and dies (kill -9): nothing renews or finishes it.
  const dead = await claimJob(b.kv, entry as Deno.KvEntry<JobRecord>, {
    owner: "dead",
    until: T0 + 10_000,
  });
  assert.ok(dead);
  const runner = b.runner();
  b.clock.now = T0 + 9_999;
  await runner.drain();
  assert.deepEqual(b.runs, [], "the lease still holds");
  b.clock.now = T0 + 10_000;
  await runner.drain();
  assert.deepEqual(b.runs, [purge("held")]);
  assert.deepEqual(await stored(b.kv), []);
  assert.equal(await finishJob(b.kv, dead), false, "the dead runner's lease is lost");
});

Deno.test("a renewed lease keeps the job; a lost one lets go without touching the new holder's", async () => {
  await using b = await bench();
  const op = b.kv.atomic();
  addJob(op, purge("renewed"), T0);
  await commit(op);
  const [job] = await stored(b.kv);
  const entry = await b.kv.get<JobRecord>(jobs.entry(job.due, job.record.id));
  const held = await claimJob(b.kv, entry as Deno.KvEntry<JobRecord>, {
    owner: "a",
    until: T0 + 10_000,
  });
  const renewed = await renewLease(b.kv, held!, T0 + 20_000);
  assert.ok(renewed);
  assert.deepEqual((await stored(b.kv)).map((j) => j.due), [T0 + 20_000]);
  assert.equal(await renewLease(b.kv, held!, T0 + 30_000), null, "an old hold cannot renew");
  b.clock.now = T0 + 15_000;
  await b.runner().drain();
  assert.deepEqual(b.runs, [], "not while the renewed lease holds");
  assert.ok(await finishJob(b.kv, renewed!));
  assert.deepEqual(await stored(b.kv), []);
});

Deno.test("a handler's outcome reschedules its job with a new payload; a failure backs off", async () => {
  let calls = 0;
  await using b = await bench(() => {
    calls++;
    if (calls === 1) return Promise.resolve({ again: { at: T0 + 5_000, payload: purge("next") } });
    if (calls === 2) return Promise.reject(new Error("store down"));
    return Promise.resolve();
  });
  const op = b.kv.atomic();
  addJob(op, purge("first"), T0);
  await commit(op);
  const runner = b.runner();
  await runner.drain();
  assert.deepEqual(b.runs, [purge("first")]);
  let [job] = await stored(b.kv);
  assert.equal(job.due, T0 + 5_000);
  assert.deepEqual(job.record.payload, purge("next"));
  assert.equal(job.record.lease, undefined);

  b.clock.now = T0 + 5_000;
  await runner.drain();
  [job] = await stored(b.kv);
  assert.equal(job.due, T0 + 6_000, "one second after its first failure");
  assert.equal(job.record.failures, 1);
  assert.equal(job.record.lastError, "store down");

  b.clock.now = T0 + 6_000;
  await runner.drain();
  assert.deepEqual(b.runs, [purge("first"), purge("next"), purge("next")]);
  assert.deepEqual(await stored(b.kv), []);
});

Deno.test("a live runner renews its lease while its handler runs: no other runner takes the job", async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  await using b = await bench(() => held);
  b.clock.now = Date.now();
  const ticking = setInterval(() => b.clock.now = Date.now(), 20);
  try {
    const op = b.kv.atomic();
    addJob(op, purge("long"), 0);
    await commit(op);
    const first = b.runner(3_000);
    await first.scan();
    assert.equal(b.runs.length, 1);
    // Another runner looks again and again for over two first leases: the job is never due.
    const other = b.runner(3_000);
    const until = Date.now() + 7_000;
    while (Date.now() < until) {
      await other.scan();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(b.runs.length, 1, "run once, by its holder");
    release();
    await first.drain();
    assert.deepEqual(await stored(b.kv), []);
  } finally {
    release();
    clearInterval(ticking);
  }
});

Deno.test("more jobs due than a runner runs at once: the rest wait for a free slot, all run", async () => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => release = resolve);
  await using b = await bench(() => gate);
  const op = b.kv.atomic();
  for (let i = 0; i < 40; i++) addJob(op, purge(`u${i}`), T0);
  await commit(op);
  const runner = b.runner();
  await runner.scan();
  assert.equal(b.runs.length, 32, "as many as run at once");
  release();
  await runner.drain();
  assert.equal(b.runs.length, 40);
  assert.deepEqual(await stored(b.kv), []);
});

/**
 * `kv` whose first `list` finds nothing (as if the job were written a moment later) and, as that
 * look ends, announces a job after `depth` further microtasks: so that some depth falls between a
 * scan's last look and its end.
 */
function blindFirstLook(kv: Deno.Kv, depth: number): Deno.Kv {
  let looks = 0;
  const announce = (left: number) => {
    if (left === 0) jobWritten(T0);
    else queueMicrotask(() => announce(left - 1));
  };
  return new Proxy(kv, {
    get(target, name) {
      if (name === "list" && looks++ === 0) {
        return async function* () {
          announce(depth);
          yield* [];
        };
      }
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("a wake that comes as a scan ends starts another look", async () => {
  for (let depth = 0; depth <= 12; depth++) {
    await using b = await bench();
    const op = b.kv.atomic();
    addJob(op, purge(`depth ${depth}`));
    await commit(op);
    const runner = b.runner(10_000, blindFirstLook(b.kv, depth)).listen();
    await runner.scan();
    // Lost, the wake leaves the job for a poll this test does not run: the bound fails it.
    await until(() => b.runs.length === 1, { timeoutMs: 10_000, what: `the wake at ${depth}` });
  }
});
