/**
 * On Deno Deploy every KV call is a network round trip, so how many a request waits for in sequence
 * is part of its cost (docs/round-trips.md). Counted exactly by kv/store/latency.ts, on a
 * frozen clock so that no cache or budget ages between the requests.
 */
import assert from "node:assert/strict";
import { withLatency } from "../../kv/store/latency.ts";
import { createApp } from "../../routes/app.ts";
import { createDeps } from "../../routes/router/deps.ts";
import { testSettings } from "../settings_fixtures.ts";
import { apiKey, createKey, setup, signUp } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

async function service() {
  const kv = await Deno.openKv(":memory:");
  const slow = withLatency(kv, 0);
  const now = Date.now();
  const svc = await setup({ kv: slow.kv, deps: { now: () => now } });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const keyed = apiKey(key.value);
  const created = await svc.request("/api/v1/tasks", {
    method: "POST",
    headers: keyed,
    json: taskBody(),
  });
  const task = await created.json();
  /** The sequential round trips of one request, its body read. */
  const trips = async (path: string, init: Parameters<typeof svc.request>[1] = {}) => {
    const { value, trips } = await slow.traced(async () => {
      const res = await svc.request(path, init);
      await res.arrayBuffer();
      return res.status;
    });
    assert.ok(value < 400, `${path}: ${value}`);
    return trips.sequential;
  };
  return {
    kv,
    slow,
    svc,
    keyed,
    task,
    now,
    trips,
    [Symbol.asyncDispose]: () => svc[Symbol.asyncDispose]().then(() => kv.close()),
  };
}

Deno.test("reads of a live instance wait for one round trip", async () => {
  await using t = await service();
  assert.equal(await t.trips(`/api/v1/tasks/${t.task.id}`), 1, "GET /tasks/:id, anonymous");
  assert.equal(await t.trips(`/api/v1/tasks/${t.task.id}`, { headers: t.keyed }), 1, "keyed");
  assert.equal(await t.trips("/api/v1/tasks", { headers: t.keyed }), 1, "list page");
  assert.equal(
    await t.trips("/api/v1/tasks/me/status", { headers: t.keyed }),
    1,
    "a status page reads its counter and its items together",
  );
});

Deno.test("writes wait for two: their reads together, then the commit", async () => {
  await using t = await service();
  const create = { method: "POST", headers: t.keyed, json: taskBody() };
  assert.equal(await t.trips("/api/v1/tasks", create), 2, "create");
  const once = { ...create, headers: { ...t.keyed, "Idempotency-Key": "k1" } };
  assert.equal(
    await t.trips("/api/v1/tasks", once),
    2,
    "the idempotency slot is read with the webhook subscription",
  );
  const patch = { method: "PATCH", headers: t.keyed, json: { budget: 12 } };
  assert.equal(
    await t.trips(`/api/v1/tasks/${t.task.id}`, patch),
    2,
    "an edit reads the task with its owner's webhook subscription",
  );
});

Deno.test("an instance reads what it needs to start in one round trip", async () => {
  await using t = await service();
  const settings = testSettings({ JWT_SECRET: undefined });
  const first = await t.slow.traced(() => createDeps(t.slow.kv, settings));
  assert.ok(first.trips.sequential <= 3, "the first start of all writes the session secret");
  const next = await t.slow.traced(async () => createApp(await createDeps(t.slow.kv, settings)));
  assert.equal(
    next.trips.sequential,
    1,
    "later starts read the stored secret together with both caches' change markers",
  );
});

Deno.test("a cold instance's first keyed request waits for at most three", async () => {
  await using t = await service();
  const settings = testSettings();
  for (
    const [path, what] of [[`/api/v1/tasks/${t.task.id}`, "GET /tasks/:id"], [
      "/api/v1/tasks",
      "list page",
    ]]
  ) {
    // A new instance on the same store: nothing of the key, its user or its budget in memory.
    const fresh = createApp(
      await createDeps(t.slow.kv, { ...settings, RATE_LIMIT_PER_HOUR: 1000 }, { now: () => t.now }),
    );
    // Calls answered at once could finish before the call meant to overlap them starts: each call
    // takes a while here, as on Deploy, so that the count is of waits, not of the machine's pace.
    t.slow.delayMs = 100;
    const { value, trips } = await t.slow.traced(async () => {
      const res = await fresh.request(path, { headers: t.keyed }, {
        remoteAddr: { hostname: "203.0.113.10", port: 40000, transport: "tcp" },
      });
      await res.arrayBuffer();
      assert.match(res.headers.get("RateLimit") ?? "", /r=\d+/, `${what}: the budget's headers`);
      return res.status;
    }).finally(() => t.slow.delayMs = 0);
    assert.equal(value, 200, what);
    assert.ok(
      trips.sequential <= 3,
      `${what}: ${trips.sequential} round trips (the digest index; the key record, its user and ` +
        "its budget together; then the grant beside the handler's read)",
    );
  }
});

Deno.test("a cold instance's keyed write over the budget answers 429 and writes nothing", async () => {
  await using t = await service();
  // The key already spent units in this window (its task); a limit of one leaves it none.
  const fresh = createApp(
    await createDeps(t.slow.kv, testSettings({ RATE_LIMIT_PER_HOUR: 1 }), { now: () => t.now }),
  );
  const before = await t.svc.request("/api/v1/tasks", { headers: t.keyed }).then((r) => r.json());
  const res = await fresh.request("/api/v1/tasks", {
    method: "POST",
    headers: { ...t.keyed, "Content-Type": "application/json" },
    body: JSON.stringify(taskBody()),
  }, { remoteAddr: { hostname: "203.0.113.10", port: 40000, transport: "tcp" } });
  assert.equal(res.status, 429);
  assert.ok(res.headers.get("Retry-After"));
  await res.body?.cancel();
  const after = await t.svc.request("/api/v1/tasks", { headers: t.keyed }).then((r) => r.json());
  assert.deepEqual(after, before, "the refused create wrote no task");
});

Deno.test("a cold instance's first anonymous request waits for at most three", async () => {
  await using t = await service();
  const settings = testSettings();
  for (
    const [path, what] of [[`/api/v1/tasks/${t.task.id}`, "GET /tasks/:id"], [
      "/api/v1/tasks/explore",
      "explore",
    ]]
  ) {
    // A new instance on the same store: nothing of the address's budget or the author in memory.
    const fresh = createApp(
      await createDeps(t.slow.kv, { ...settings, ANON_RATE_LIMIT_PER_HOUR: 1000 }, {
        now: () => t.now,
      }),
    );
    t.slow.delayMs = 100;
    const { value, trips } = await t.slow.traced(async () => {
      const res = await fresh.request(path, {}, {
        remoteAddr: { hostname: "203.0.113.11", port: 40000, transport: "tcp" },
      });
      await res.arrayBuffer();
      assert.match(res.headers.get("RateLimit") ?? "", /r=\d+/, `${what}: the budget's headers`);
      return res.status;
    }).finally(() => t.slow.delayMs = 0);
    assert.equal(value, 200, what);
    assert.ok(
      trips.sequential <= 3,
      `${what}: ${trips.sequential} round trips (the address's window beside the handler's ` +
        "first read; then the grant beside its next; the answer waits for the grant)",
    );
  }
});

Deno.test("a cold instance's anonymous request over the budget answers 429, and a sign-up over it hashes and writes nothing", async () => {
  await using t = await service();
  const address = { remoteAddr: { hostname: "203.0.113.12", port: 40000, transport: "tcp" } };
  const spend = createApp(
    await createDeps(t.slow.kv, testSettings({ ANON_RATE_LIMIT_PER_HOUR: 1 }), {
      now: () => t.now,
    }),
  );
  const first = await spend.request(`/api/v1/tasks/${t.task.id}`, {}, address);
  assert.equal(first.status, 200);
  await first.body?.cancel();
  const fresh = createApp(
    await createDeps(t.slow.kv, testSettings({ ANON_RATE_LIMIT_PER_HOUR: 1 }), {
      now: () => t.now,
    }),
  );
  const read = await fresh.request(`/api/v1/tasks/${t.task.id}`, {}, address);
  assert.equal(read.status, 429);
  await read.body?.cancel();
  const signUp = await fresh.request("/v1/users", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "late@example.com", password: "correct horse", firstName: "L" }),
  }, address);
  assert.equal(signUp.status, 429);
  await signUp.body?.cancel();
  const login = await t.svc.request("/v1/auth/token", {
    method: "POST",
    json: { email: "late@example.com", password: "correct horse" },
  });
  assert.equal(login.status, 401, "the refused sign-up wrote no account");
  await login.body?.cancel();
});
