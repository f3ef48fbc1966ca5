import assert from "node:assert/strict";
import { newTask, TaskCreate } from "../../domain/tasks/task.ts";
import { projects, tasks } from "../../kv/keyspace.ts";
import { orderKey } from "../../kv/order_key.ts";
import { createTask, getTask } from "../../kv/tasks/tasks.ts";
import { PURGE_BATCH, purgeUser } from "../../kv/users/user_purge.ts";
import { pendingPurges } from "../../kv/users/users.ts";
import { startJobs } from "../../kv/jobs/start.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { openTestKv } from "../helpers.ts";

Deno.test("DELETE /v1/users/:id deletes one's own account, with a session only", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc, { firstName: "Ada" });
  const bob = await signUp(svc, { firstName: "Bob" });
  const adaKey = await createKey(svc, ada.token, {
    scopes: ["profile:read", "profile:write", "projects:read", "projects:write"],
  });
  const secondLogin = await svc.request("/v1/auth/token", {
    method: "POST",
    json: { email: ada.email, password: ada.password },
  });
  const secondToken = (await secondLogin.json()).token as string;
  const project = await svc.request("/v1/projects", {
    method: "POST",
    headers: apiKey(adaKey.value),
    json: { name: "Garden" },
  });
  const projectId = (await project.json()).id as string;

  await t.step("with an API key it answers 403 SESSION_REQUIRED", async () => {
    const res = await svc.request(`/v1/users/${ada.id}`, {
      method: "DELETE",
      headers: apiKey(adaKey.value),
    });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).code, "SESSION_REQUIRED");
  });

  await t.step("another user's account answers 403 FORBIDDEN", async () => {
    const res = await svc.request(`/v1/users/${bob.id}`, {
      method: "DELETE",
      headers: bearer(ada.token),
    });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).code, "FORBIDDEN");
  });

  await t.step("an unknown account answers 404 NOT_FOUND", async () => {
    const res = await svc.request(`/v1/users/${crypto.randomUUID()}`, {
      method: "DELETE",
      headers: bearer(ada.token),
    });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "NOT_FOUND");
  });

  await t.step('one\'s own account answers 200 {"message":"User deleted"}', async () => {
    const res = await svc.request(`/api/v1/users/${ada.id}`, {
      method: "DELETE",
      headers: bearer(ada.token),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { message: "User deleted" });
  });

  await t.step("every session of the account fails at once with 401 TOKEN_INVALID", async () => {
    for (const token of [ada.token, secondToken]) {
      const res = await svc.request("/v1/users/me", { headers: bearer(token) });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).code, "TOKEN_INVALID");
    }
  });

  await t.step("every API key of the account fails at once with 401 API_KEY_INVALID", async () => {
    const res = await svc.request("/v1/users/me", { headers: apiKey(adaKey.value) });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "API_KEY_INVALID");
  });

  await t.step("the profile answers 404 and leaves GET /v1/users", async () => {
    const one = await svc.request(`/v1/users/${ada.id}`, { headers: bearer(bob.token) });
    assert.equal(one.status, 404);
    await one.body?.cancel();
    const list = await svc.request("/v1/users", { headers: bearer(bob.token) });
    assert.deepEqual((await list.json()).map((u: { id: string }) => u.id), [bob.id]);
  });

  await t.step("deleting it again answers 401: no credential of it is left", async () => {
    const res = await svc.request(`/v1/users/${ada.id}`, {
      method: "DELETE",
      headers: bearer(ada.token),
    });
    assert.equal(res.status, 401);
    await res.body?.cancel();
  });

  await t.step("its password no longer logs in: 401 INVALID_CREDENTIALS", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email: ada.email, password: ada.password },
    });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "INVALID_CREDENTIALS");
  });

  await t.step("its email is free for a new sign-up, which is a new account", async () => {
    const res = await svc.request("/v1/users", {
      method: "POST",
      json: { email: ada.email.toUpperCase(), password: "another password", firstName: "New" },
    });
    assert.equal(res.status, 201);
    assert.notEqual((await res.json()).id, ada.id);
  });

  await t.step("the account stays marked for purge until the queue worker ran", async () => {
    assert.deepEqual([...await pendingPurges(svc.kv)], [ada.id]);
    const project = await svc.kv.get<{ deletedAt: string | null }>(projects.record(projectId));
    assert.equal(project.value?.deletedAt, null);
  });

  await t.step("the purge soft-deletes its projects and lifts the marker", async () => {
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: ada.id });
    const project = await svc.kv.get<{ deletedAt: string | null }>(projects.record(projectId));
    assert.ok(project.value?.deletedAt);
    assert.deepEqual([...await pendingPurges(svc.kv)], []);
  });

  await t.step("purging again does no harm", async () => {
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: ada.id });
    assert.deepEqual([...await pendingPurges(svc.kv)], []);
  });
});

Deno.test("account deletion is finished in the background by its job", async () => {
  const kv = await openTestKv();
  const svc = await setup({ kv });
  const jobs = startJobs({ kv, now: Date.now });
  try {
    const ada = await signUp(svc);
    const res = await svc.request(`/v1/users/${ada.id}`, {
      method: "DELETE",
      headers: bearer(ada.token),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    await jobs.drain();
    assert.equal((await pendingPurges(kv)).size, 0, "the job lifted the purge marker");
  } finally {
    await jobs.stop();
    await svc[Symbol.asyncDispose]();
    kv.close();
  }
});

/** Stores `count` published tasks for a user straight in KV (fast bulk set-up). */
async function seedTasks(
  kv: Deno.Kv,
  { userId, count, start = Date.now() }: { userId: string; count: number; start?: number },
) {
  const input = TaskCreate.parse({
    title: "Walk the dog",
    description: "Twice a day",
    budget: 10,
    currency: "EUR",
    location: { coordinates: [4.8357, 45.764], type: "city", name: "Lyon", countryCode: "FR" },
    requirement: "Likes dogs",
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = crypto.randomUUID();
    const at = start + i;
    await createTask(
      kv,
      newTask(input, { id, userId, orderKey: orderKey(at, id) }, new Date(at).toISOString()),
    );
    ids.push(id);
  }
  return ids;
}

Deno.test("a deleted account's tasks are hidden at once and deleted in the background", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const bob = await signUp(svc);
  const count = PURGE_BATCH * 2 + 17;
  const ids = await seedTasks(svc.kv, { userId: ada.id, count });

  await t.step("before deletion the tasks are public", async () => {
    const res = await svc.request(`/api/v1/tasks/${ids[0]}`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  const res = await svc.request(`/v1/users/${ada.id}`, {
    method: "DELETE",
    headers: bearer(ada.token),
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();

  await t.step("right after DELETE, before any purge, every task answers 404", async () => {
    for (const id of [ids[0], ids[count - 1]]) {
      for (const headers of [{}, bearer(bob.token)]) {
        const one = await svc.request(`/api/v1/tasks/${id}`, { headers });
        assert.equal(one.status, 404);
        assert.equal((await one.json()).code, "NOT_FOUND");
      }
    }
  });

  await t.step("right after DELETE, no explore query lists any of its tasks", async () => {
    const bobTask = await seedTasks(svc.kv, { userId: bob.id, count: 1 });
    for (
      const query of [
        "",
        "?cityName=lyon",
        "?latitude=45.76&longitude=4.84&radiusKm=20",
        "?search=walk&limit=50",
      ]
    ) {
      const list = await svc.request(`/api/v1/tasks/explore${query}`);
      assert.equal(list.status, 200, query);
      const found = (await list.json()).map((task: { id: string }) => task.id);
      assert.deepEqual(found, bobTask, `only the live author's task for "${query}"`);
    }
  });

  await t.step(`one purge message deletes ${PURGE_BATCH} tasks and queues the rest`, async () => {
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: ada.id });
    const stored = await Promise.all(ids.map((id) => getTask(svc.kv, id)));
    assert.equal(stored.filter((task) => task?.deletedAt).length, PURGE_BATCH);
    assert.deepEqual([...await pendingPurges(svc.kv)], [ada.id], "still hidden meanwhile");
  });

  await t.step("further messages finish the job, then the marker is lifted", async () => {
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: ada.id });
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: ada.id });
    const stored = await Promise.all(ids.map((id) => getTask(svc.kv, id)));
    assert.ok(stored.every((task) => task?.deletedAt), "every record kept with deletedAt");
    const left = [];
    for await (const entry of svc.kv.list({ prefix: tasks.byUserPrefix(ada.id) })) {
      left.push(entry.key);
    }
    assert.deepEqual(left, [], "no index entry of the account is left");
    assert.deepEqual([...await pendingPurges(svc.kv)], []);
  });
});

Deno.test("the purge job purges a large account to the end by itself", async () => {
  const kv = await openTestKv();
  const svc = await setup({ kv });
  const jobs = startJobs({ kv, now: Date.now });
  try {
    const ada = await signUp(svc);
    const ids = await seedTasks(kv, { userId: ada.id, count: PURGE_BATCH + 50 });
    const started = performance.now();
    const res = await svc.request(`/v1/users/${ada.id}`, {
      method: "DELETE",
      headers: bearer(ada.token),
    });
    const answeredMs = performance.now() - started;
    assert.equal(res.status, 200);
    await res.body?.cancel();
    await jobs.drain();
    assert.equal((await pendingPurges(kv)).size, 0, "the job lifted the purge marker");
    const stored = await Promise.all(ids.map((id) => getTask(kv, id)));
    assert.ok(stored.every((task) => task?.deletedAt));
    assert.ok(answeredMs < 1000, `DELETE answered in ${answeredMs} ms, not after the purge`);
  } finally {
    await jobs.stop();
    await svc[Symbol.asyncDispose]();
    kv.close();
  }
});
