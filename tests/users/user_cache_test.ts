import assert from "node:assert/strict";
import { users } from "../../kv/keyspace.ts";
import { meter } from "../../kv/store/meter.ts";
import { pollTogether } from "../../kv/polled_cache.ts";
import {
  apiKey,
  bearer,
  createKey,
  setup,
  sharedInstances,
  signUp,
  type TestContext,
} from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";

async function author(svc: TestContext, taskId: string): Promise<string | number> {
  const res = await svc.request(`/api/v1/tasks/${taskId}`);
  if (res.status !== 200) {
    await res.body?.cancel();
    return res.status;
  }
  return (await res.json()).authorFirstName;
}

Deno.test("GET /tasks/:id reads a task's author from memory once cached, not from KV per request", async () => {
  await using svc = await setup();
  const user = await signUp(svc, { firstName: "Ada" });
  const task = await postTask(svc, user.token);
  assert.equal(await author(svc, task.id), "Ada");
  assert.equal(svc.deps.userCache.size, 1);
  // Change the record behind the cache's back, without the marker: a KV read would see it.
  const entry = await svc.kv.get<Record<string, unknown>>(users.record(user.id));
  await svc.kv.set(users.record(user.id), { ...entry.value, firstName: "Grace" });
  assert.equal(await author(svc, task.id), "Ada");
});

Deno.test("author changes on one instance reach another's task pages within a second", async (t) => {
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  await using group = await sharedInstances(2, { deps: { now: () => now } });
  const [a, b] = group.list;
  const user = await signUp(a, { firstName: "Ada" });
  const task = await postTask(a, user.token);

  await t.step("B shows the author and caches the record", async () => {
    assert.equal(await author(b, task.id), "Ada");
    assert.equal(b.deps.userCache.size, 1);
  });

  await t.step("a first name changed via A shows on A at once", async () => {
    assert.equal(await author(a, task.id), "Ada");
    const res = await a.request(`/v1/users/${user.id}`, {
      method: "PUT",
      headers: bearer(user.token),
      json: { firstName: "Grace" },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await author(a, task.id), "Grace");
  });

  await t.step("B shows it after its next poll (every 250 ms)", async () => {
    assert.equal(await author(b, task.id), "Ada", "B has not polled yet");
    await b.deps.userCache.poll();
    assert.equal(await author(b, task.id), "Grace");
  });

  await t.step("with no poll timer at all, B checks once its view is a second old", async () => {
    const res = await a.request(`/v1/users/${user.id}`, {
      method: "PUT",
      headers: bearer(user.token),
      json: { firstName: "Hedy" },
    });
    await res.body?.cancel();
    now += 1_001;
    assert.equal(await author(b, task.id), "Hedy");
  });

  await t.step(
    "an account deleted via A: its task is 404 on A at once and on B after a poll",
    async () => {
      assert.equal(await author(a, task.id), "Hedy");
      const res = await a.request(`/v1/users/${user.id}`, {
        method: "DELETE",
        headers: bearer(user.token),
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      assert.equal(await author(a, task.id), 404);
      await b.deps.userCache.poll();
      assert.equal(await author(b, task.id), 404);
    },
  );
});

Deno.test("one read polls the key and user change markers together, and drops only the cache whose marker moved", async () => {
  await using inner = await Deno.openKv(":memory:");
  const metered = meter(inner);
  await using svc = await setup({ kv: metered.kv });
  const user = await signUp(svc, { firstName: "Ada" });
  const task = await postTask(svc, user.token);
  const key = await createKey(svc, user.token);
  assert.equal((await svc.request("/v1/users/me", { headers: apiKey(key.value) })).status, 200);
  assert.equal(await author(svc, task.id), "Ada");
  const caches = [svc.deps.apiKeyCache, svc.deps.userCache];
  await pollTogether(metered.kv, caches);
  assert.deepEqual(caches.map((c) => c.size), [1, 1]);

  metered.reset();
  await pollTogether(metered.kv, caches);
  assert.equal(metered.usage.reads, 1, "both markers in one read");

  // A user change elsewhere moves the user marker only.
  await inner.set(users.changed(), user.id);
  await pollTogether(metered.kv, caches);
  assert.deepEqual(caches.map((c) => c.size), [1, 0]);
});
