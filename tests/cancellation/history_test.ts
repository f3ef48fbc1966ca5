/**
 * A task's history (docs/contract.md section 20): each change's entry, oldest first, who may read
 * it, cursor paging, and a task written before histories were kept.
 */
import assert from "node:assert/strict";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { settleImpliedDeclines } from "../../kv/application_declines.ts";
import { taskHistory, tasks } from "../../kv/keyspace.ts";
import { changeTask } from "../../kv/tasks/tasks.ts";
import { createKey, setup, signUp, type TestContext } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { applyTo, cancel, send, setStatus, type User, users } from "./fixtures.ts";

type Entry = { at: string; type: string; actorId: string };

async function history(svc: TestContext, user: User, taskId: string, query = "") {
  return await send(svc, `/api/v1/tasks/${taskId}/history${query}`, { token: user.token });
}

/** Every entry, following the cursors `limit` at a time. */
async function allPages(svc: TestContext, user: User, taskId: string, limit: number) {
  const entries: Entry[] = [];
  let query = `?limit=${limit}`;
  for (let pages = 0; pages < 50; pages++) {
    const res = await history(svc, user, taskId, query);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.length <= limit);
    entries.push(...res.body);
    const next = res.headers.get("X-Next-Cursor");
    if (!next) return entries;
    query = `?limit=${limit}&cursor=${next}`;
  }
  throw new Error("the history's pages did not end");
}

Deno.test("every change of a task and of its people is in its history, oldest first, with its actor", async () => {
  await using svc = await setup();
  const [ada, bob, cid] = await users(svc, 3);
  let clock = Date.now();
  svc.deps.now = () => (clock += 1000);
  const task = await postTask(svc, ada.token, { maxPeople: 2 });
  await send(svc, `/api/v1/tasks/${task.id}`, {
    method: "PATCH",
    token: ada.token,
    json: { title: "A new title" },
  });
  // A PATCH that changes nothing records nothing.
  await send(svc, `/api/v1/tasks/${task.id}`, { method: "PATCH", token: ada.token, json: {} });
  const bobApp = await applyTo(svc, bob, task.id);
  const cidApp = await applyTo(svc, cid, task.id);
  await setStatus(svc, ada, bobApp, "accepted");
  await setStatus(svc, ada, cidApp, "accepted");
  await setStatus(svc, cid, cidApp, "withdrawn");
  assert.equal((await cancel(svc, ada, task.id)).status, 200);
  const res = await history(svc, ada, task.id);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.map((e: Entry) => [e.type, e.actorId]), [
    ["created", ada.id],
    ["edited", ada.id],
    ["application_accepted", ada.id],
    ["application_accepted", ada.id],
    ["application_withdrawn", cid.id],
    ["cancelled", ada.id],
  ]);
  const times = res.body.map((e: Entry) => Date.parse(e.at));
  assert.deepEqual(times, [...times].sort((a, b) => a - b), "oldest first");
  assert.equal(res.body[0].at, task.createdAt);
  const detail = await send(svc, `/api/v1/tasks/${task.id}`, { token: ada.token });
  assert.equal(res.body.at(-1).at, detail.body.cancelledAt);
  assert.equal(res.headers.get("X-Next-Cursor"), null);
});

Deno.test("an edit and a completion in one PATCH record both; declines and pending moves record nothing", async () => {
  await using svc = await setup();
  const [ada, bob, cid] = await users(svc, 3);
  const task = await postTask(svc, ada.token, { maxPeople: 2 });
  const bobApp = await applyTo(svc, bob, task.id);
  const cidApp = await applyTo(svc, cid, task.id);
  await setStatus(svc, ada, bobApp, "declined");
  await setStatus(svc, cid, cidApp, "withdrawn");
  await send(svc, `/api/v1/tasks/${task.id}`, {
    method: "PATCH",
    token: ada.token,
    json: { budget: 99, status: "completed" },
  });
  const res = await history(svc, ada, task.id);
  assert.deepEqual(res.body.map((e: Entry) => e.type), ["created", "edited", "completed"]);
});

Deno.test("the history is read by the creator and every applicant ever accepted; 404 for anyone else", async () => {
  await using svc = await setup();
  const [ada, bob, cid, dee, eve] = await users(svc, 5);
  const task = await postTask(svc, ada.token, { maxPeople: 3 });
  const bobApp = await applyTo(svc, bob, task.id);
  const cidApp = await applyTo(svc, cid, task.id);
  await applyTo(svc, dee, task.id);
  await setStatus(svc, ada, bobApp, "accepted");
  await setStatus(svc, ada, cidApp, "accepted");
  await setStatus(svc, cid, cidApp, "withdrawn"); // accepted once: still reads the history
  for (const user of [ada, bob, cid]) {
    assert.equal((await history(svc, user, task.id)).status, 200);
  }
  for (const user of [dee, eve]) {
    const res = await history(svc, user, task.id);
    assert.equal(res.status, 404, "a pending applicant, a stranger");
    assert.equal(res.body.code, "NOT_FOUND");
  }
  const anonymous = await svc.request(`/api/v1/tasks/${task.id}/history`);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  const key = await createKey(svc, ada.token, { scopes: ["tasks:write"] });
  const noScope = await svc.request(`/api/v1/tasks/${task.id}/history`, {
    headers: { "X-API-Key": key.value },
  });
  assert.equal(noScope.status, 403, "tasks:read is needed");
  await noScope.body?.cancel();
  assert.equal((await history(svc, ada, crypto.randomUUID())).status, 404);
  await send(svc, `/api/v1/tasks/${task.id}`, { method: "DELETE", token: ada.token });
  for (const user of [ada, bob]) {
    assert.equal((await history(svc, user, task.id)).status, 404, "a deleted task's");
  }
});

Deno.test("the history pages by cursor, oldest first, every entry once; a foreign cursor is 400", async () => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const task = await postTask(svc, ada.token);
  for (let i = 0; i < 6; i++) {
    await send(svc, `/api/v1/tasks/${task.id}`, {
      method: "PATCH",
      token: ada.token,
      json: { budget: 10 + i },
    });
  }
  const whole = (await history(svc, ada, task.id)).body;
  assert.equal(whole.length, 7);
  for (const limit of [1, 2, 3, 7]) {
    assert.deepEqual(await allPages(svc, ada, task.id, limit), whole, `limit ${limit}`);
  }
  const first = await history(svc, ada, task.id, "?limit=2");
  assert.match(first.headers.get("Link") ?? "", /rel="next"/);
  const other = await postTask(svc, ada.token);
  const cursor = first.headers.get("X-Next-Cursor");
  const foreign = await history(svc, ada, other.id, `?cursor=${cursor}`);
  assert.equal(foreign.status, 400);
  assert.equal(foreign.body.code, "INVALID_CURSOR");
  assert.equal((await history(svc, ada, task.id, "?cursor=junk")).body.code, "INVALID_CURSOR");
  assert.equal((await history(svc, ada, task.id, "?limit=51")).status, 400);
});

Deno.test("a task written before histories starts with a created made from its record", async () => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const task = await postTask(svc, ada.token);
  // As the previous version stored it: the record and indexes, no history, no count.
  const old = (await svc.kv.get<TaskRecord>(tasks.record(task.id))).value!;
  const { historySeq: _, ...before } = old;
  await svc.kv.delete(["task_history", task.id, 1]);
  await svc.kv.set(tasks.record(task.id), before);
  assert.deepEqual((await history(svc, ada, task.id)).body, [
    { at: task.createdAt, type: "created", actorId: ada.id },
  ]);
  await changeTask(svc.kv, {
    taskId: task.id,
    change: (t) => t && { ...t, title: "Edited since", updatedAt: new Date().toISOString() },
  });
  const res = await history(svc, ada, task.id);
  assert.deepEqual(res.body.map((e: Entry) => e.type), ["created", "edited"]);
  assert.deepEqual(await allPages(svc, ada, task.id, 1), res.body, "paged across the made one");
});

Deno.test("a helper accepted before the marks existed still reads the history and sees the cancelled task", async () => {
  await using svc = await setup();
  const [ada, bob] = await users(svc, 2);
  const task = await postTask(svc, ada.token);
  const app = await applyTo(svc, bob, task.id);
  await setStatus(svc, ada, app, "accepted");
  // As the previous version left an acceptance: no mark, only the active marker.
  await svc.kv.delete(taskHistory.helper(task.id, bob.id));
  assert.equal((await history(svc, bob, task.id)).status, 200);
  assert.equal((await cancel(svc, ada, task.id)).status, 200);
  assert.equal((await send(svc, `/api/v1/tasks/${task.id}`, { token: bob.token })).status, 200);
  assert.equal((await history(svc, bob, task.id)).status, 200, "before the job ran");
  await settleImpliedDeclines({ kv: svc.kv, now: () => Date.now() }, {
    kind: "task_declines",
    taskId: task.id,
  });
  const mark = await svc.kv.get(taskHistory.helper(task.id, bob.id));
  assert.equal(mark.value, app, "the job marked him as it cancelled his application");
  assert.equal((await send(svc, `/api/v1/tasks/${task.id}`, { token: bob.token })).status, 200);
  assert.equal((await history(svc, bob, task.id)).status, 200, "after it");
});
