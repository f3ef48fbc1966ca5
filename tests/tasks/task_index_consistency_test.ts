import assert from "node:assert/strict";
import { bearer, setup, signUp } from "../helpers.ts";
import { assertTaskIndexesConsistent } from "./task_consistency.ts";
import { callTask, postTask } from "./task_fixtures.ts";
import { purgeUser } from "../../kv/users/user_purge.ts";
import { tasks as taskKeys } from "../../kv/keyspace.ts";

Deno.test("every index entry and counter agrees with the task records", async (t) => {
  await using svc = await setup();
  const users = [await signUp(svc), await signUp(svc), await signUp(svc)];

  await t.step("an empty store is consistent", async () => {
    assert.deepEqual(await assertTaskIndexesConsistent(svc.kv), {
      records: 0,
      liveRecords: 0,
      indexEntries: 0,
      counters: 0,
    });
  });

  await t.step("after creates, edits, completions and deletes (some at once)", async () => {
    const ids: { id: string; token: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const { token } = users[i % users.length];
      const task = await postTask(svc, token, {
        title: `Task ${i} café`,
        budget: i % 3 === 0 ? 0 : i * 1.5,
      });
      ids.push({ id: task.id, token });
    }
    const work: Promise<number>[] = [];
    ids.forEach(({ id, token }, i) => {
      if (i % 2 === 0) {
        work.push(
          callTask(svc, { token, method: "PATCH", id, json: { title: `Edited ${i}`, budget: 0 } }),
        );
      }
      if (i % 3 === 0) {
        work.push(callTask(svc, { token, method: "PATCH", id, json: { status: "completed" } }));
      }
      if (i % 5 === 0) work.push(callTask(svc, { token, method: "DELETE", id }));
      if (i % 7 === 0) {
        work.push(callTask(svc, { token, method: "PATCH", id, json: { budget: 12 } }));
      }
    });
    const statuses = await Promise.all(work);
    assert.ok(statuses.every((s) => s === 200 || s === 404 || s === 409), String(statuses));

    const report = await assertTaskIndexesConsistent(svc.kv);
    assert.equal(report.records, 30);
    assert.ok(report.liveRecords < 30 && report.liveRecords >= 24);
    assert.ok(report.indexEntries > report.liveRecords);
    assert.ok(report.counters > 0);
  });

  await t.step("the checker notices a stale index entry", async () => {
    const { token } = users[0];
    const task = await postTask(svc, token);
    const stored = await svc.kv.get<{ userId: string; orderKey: string }>(taskKeys.record(task.id));
    await callTask(svc, { token, method: "DELETE", id: task.id });
    await svc.kv.set(taskKeys.byUser(stored.value!.userId, stored.value!.orderKey), {});
    await assert.rejects(assertTaskIndexesConsistent(svc.kv), /stale index entry/);
    await svc.kv.delete(taskKeys.byUser(stored.value!.userId, stored.value!.orderKey));
    await assertTaskIndexesConsistent(svc.kv);
  });
});

Deno.test("deleting an account takes its tasks out of every index", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const bob = await signUp(svc);
  const tasks: { id: string }[] = [];
  for (let i = 0; i < 5; i++) tasks.push(await postTask(svc, ada.token, { title: `Ada ${i}` }));
  await callTask(svc, {
    token: ada.token,
    method: "PATCH",
    id: tasks[0].id,
    json: { status: "completed" },
  });
  const kept = await postTask(svc, bob.token);
  const res = await svc.request(`/v1/users/${ada.id}`, {
    method: "DELETE",
    headers: bearer(ada.token),
  });
  await res.body?.cancel();
  assert.equal(res.status, 200);

  await t.step("a deleted author's task answers 404 at once", async () => {
    const one = await svc.request(`/api/v1/tasks/${tasks[1].id}`);
    await one.body?.cancel();
    assert.equal(one.status, 404);
  });

  await t.step("the purge soft-deletes every task; indexes and counters agree", async () => {
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: ada.id });
    for (const task of tasks) {
      const stored = await svc.kv.get<{ deletedAt: string | null }>(taskKeys.record(task.id));
      assert.ok(stored.value?.deletedAt, task.id);
    }
    const report = await assertTaskIndexesConsistent(svc.kv);
    assert.equal(report.liveRecords, 1);
    const still = await svc.request(`/api/v1/tasks/${kept.id}`);
    await still.body?.cancel();
    assert.equal(still.status, 200, "other users' tasks stay");
  });

  await t.step("purging again does no harm", async () => {
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: ada.id });
    await assertTaskIndexesConsistent(svc.kv);
  });
});
