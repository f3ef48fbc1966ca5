/** Changing a task of one's own: edits, completion, concurrent edits, soft deletion. */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { postTask } from "./task_fixtures.ts";
import { tasks } from "../../kv/keyspace.ts";
import { del, DETAIL_FIELDS, get, ISO_MS, patch } from "./tasks_fixtures.ts";

Deno.test("PATCH /tasks/:id edits and completes a task of one's own", async (t) => {
  // A clock that only moves when told; it starts now, since session tokens carry real times.
  let clock = Date.now();
  await using svc = await setup({ deps: { now: () => clock } });
  const owner = await signUp(svc);
  const other = await signUp(svc);

  await t.step("a partial body changes only the fields it names and bumps updatedAt", async () => {
    const task = await postTask(svc, owner.token);
    clock += 60_000;
    const res = await patch(svc, {
      id: task.id,
      token: owner.token,
      json: { title: " New title ", budget: 0 },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.title, "New title");
    assert.equal(res.body.budget, 0);
    assert.equal(res.body.description, task.description);
    assert.deepEqual(res.body.location, task.location);
    assert.equal(res.body.createdAt, task.createdAt);
    assert.equal(res.body.updatedAt, new Date(clock).toISOString());
    assert.notEqual(res.body.updatedAt, task.updatedAt);
    assert.equal((await get(svc, task.id)).body.title, "New title", "the change is stored");
  });

  await t.step("the answer is the single-task shape", async () => {
    const task = await postTask(svc, owner.token);
    const res = await patch(svc, { id: task.id, token: owner.token, json: { maxPeople: 3 } });
    assert.deepEqual(Object.keys(res.body).sort(), DETAIL_FIELDS);
  });

  await t.step("dueDate can be cleared with null", async () => {
    const task = await postTask(svc, owner.token, { dueDate: "2031-01-01" });
    assert.equal(
      (await patch(svc, { id: task.id, token: owner.token, json: { dueDate: null } })).body.dueDate,
      null,
    );
  });

  await t.step("a location is replaced as a whole", async () => {
    const task = await postTask(svc, owner.token);
    const location = { coordinates: [13.4, 52.52], type: "radius", name: "Berlin", radiusKm: 20 };
    const res = await patch(svc, { id: task.id, token: owner.token, json: { location } });
    assert.deepEqual(res.body.location, location);
    assert.deepEqual(res.body.cities, []);
  });

  await t.step('{"status":"completed"} completes a published task', async () => {
    const task = await postTask(svc, owner.token);
    const res = await patch(svc, {
      id: task.id,
      token: owner.token,
      json: { status: "completed" },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "completed");
    assert.match(res.body.completedAt, ISO_MS);
    assert.equal(res.body.completedAt, res.body.updatedAt, "completedAt is the completing PATCH's");
    const read = await get(svc, task.id, bearer(owner.token));
    assert.equal(read.body.completedAt, res.body.completedAt);
  });

  await t.step("completed is final: any further PATCH answers 409 INVALID_TRANSITION", async () => {
    const task = await postTask(svc, owner.token);
    await patch(svc, { id: task.id, token: owner.token, json: { status: "completed" } });
    for (const body of [{ status: "completed" }, { title: "Again" }, {}]) {
      const res = await patch(svc, { id: task.id, token: owner.token, json: body });
      assert.equal(res.status, 409, JSON.stringify(body));
      assert.equal(res.body.code, "INVALID_TRANSITION");
    }
  });

  await t.step("another user's visible task answers 403 FORBIDDEN", async () => {
    const task = await postTask(svc, owner.token);
    const res = await patch(svc, { id: task.id, token: other.token, json: { title: "Mine now" } });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "FORBIDDEN");
    assert.equal((await get(svc, task.id)).body.title, task.title, "nothing changed");
  });

  await t.step("another user's completed task answers 404", async () => {
    const task = await postTask(svc, owner.token);
    await patch(svc, { id: task.id, token: owner.token, json: { status: "completed" } });
    assert.equal(
      (await patch(svc, { id: task.id, token: other.token, json: { title: "x" } })).status,
      404,
    );
  });

  await t.step("an unknown or deleted task answers 404", async () => {
    assert.equal(
      (await patch(svc, { id: crypto.randomUUID(), token: owner.token, json: { title: "x" } }))
        .status,
      404,
    );
    const task = await postTask(svc, owner.token);
    await del(svc, task.id, bearer(owner.token));
    assert.equal(
      (await patch(svc, { id: task.id, token: owner.token, json: { title: "x" } })).status,
      404,
    );
  });

  await t.step("a key without tasks:write answers 403 SCOPE_INSUFFICIENT", async () => {
    const task = await postTask(svc, owner.token);
    const key = await createKey(svc, owner.token, { scopes: ["tasks:read"] });
    const res = await svc.request(`/api/v1/tasks/${task.id}`, {
      method: "PATCH",
      headers: apiKey(key.value),
      json: { title: "x" },
    });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).code, "SCOPE_INSUFFICIENT");
  });
});

Deno.test("concurrent edits never lose one", async (t) => {
  await using svc = await setup();
  const owner = await signUp(svc);

  await t.step("two PATCHes of different fields at once both survive", async () => {
    for (let round = 0; round < 10; round++) {
      const task = await postTask(svc, owner.token);
      const [a, b] = await Promise.all([
        patch(svc, { id: task.id, token: owner.token, json: { title: `Title ${round}` } }),
        patch(svc, { id: task.id, token: owner.token, json: { budget: round + 1 } }),
      ]);
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      const { body } = await get(svc, task.id);
      assert.equal(body.title, `Title ${round}`);
      assert.equal(body.budget, round + 1);
    }
  });

  await t.step("six PATCHes of six fields at once all survive", async () => {
    const task = await postTask(svc, owner.token);
    const changes = [
      { title: "T" },
      { description: "D" },
      { budget: 7 },
      { currency: "JPY" },
      { requirement: "R" },
      { maxPeople: 9 },
    ];
    const results = await Promise.all(
      changes.map((c) => patch(svc, { id: task.id, token: owner.token, json: c })),
    );
    assert.deepEqual(results.map((r) => r.status), changes.map(() => 200));
    const { body } = await get(svc, task.id);
    for (const change of changes) {
      for (const [field, value] of Object.entries(change)) assert.equal(body[field], value);
    }
  });

  await t.step(
    "an edit racing a completion: the completion wins or follows, never lost",
    async () => {
      const task = await postTask(svc, owner.token);
      const [edit, complete] = await Promise.all([
        patch(svc, { id: task.id, token: owner.token, json: { title: "Edited" } }),
        patch(svc, { id: task.id, token: owner.token, json: { status: "completed" } }),
      ]);
      assert.equal(complete.status, 200);
      const { body } = await get(svc, task.id, bearer(owner.token));
      assert.equal(body.status, "completed");
      if (edit.status === 200) assert.equal(body.title, "Edited");
      else assert.equal(edit.body.code, "INVALID_TRANSITION");
    },
  );
});

Deno.test("DELETE /tasks/:id soft-deletes a task of one's own", async (t) => {
  await using svc = await setup();
  const owner = await signUp(svc);
  const other = await signUp(svc);

  await t.step('the creator deletes: 200 {"message":"Task deleted"}', async () => {
    const task = await postTask(svc, owner.token);
    const res = await del(svc, task.id, bearer(owner.token));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { message: "Task deleted" });
  });

  await t.step("the record is kept with deletedAt", async () => {
    const task = await postTask(svc, owner.token);
    await del(svc, task.id, bearer(owner.token));
    const stored = await svc.kv.get<{ deletedAt: string | null }>(tasks.record(task.id));
    assert.match(stored.value!.deletedAt!, ISO_MS);
  });

  await t.step("DELETE by another user answers 403 FORBIDDEN", async () => {
    const task = await postTask(svc, owner.token);
    const res = await del(svc, task.id, bearer(other.token));
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "FORBIDDEN");
    assert.equal((await get(svc, task.id)).status, 200, "the task is still there");
  });

  await t.step("DELETE of another user's completed task answers 404", async () => {
    const task = await postTask(svc, owner.token);
    await patch(svc, { id: task.id, token: owner.token, json: { status: "completed" } });
    assert.equal((await del(svc, task.id, bearer(other.token))).status, 404);
  });

  await t.step("the creator may delete a completed task", async () => {
    const task = await postTask(svc, owner.token);
    await patch(svc, { id: task.id, token: owner.token, json: { status: "completed" } });
    assert.equal((await del(svc, task.id, bearer(owner.token))).status, 200);
  });

  await t.step("DELETE of an unknown or already deleted task answers 404", async () => {
    assert.equal((await del(svc, crypto.randomUUID(), bearer(owner.token))).status, 404);
    const task = await postTask(svc, owner.token);
    await del(svc, task.id, bearer(owner.token));
    const again = await del(svc, task.id, bearer(owner.token));
    assert.equal(again.status, 404);
    assert.equal(again.body.code, "NOT_FOUND");
  });

  await t.step("DELETE needs tasks:write", async () => {
    const task = await postTask(svc, owner.token);
    const key = await createKey(svc, owner.token, { scopes: ["tasks:read"] });
    const res = await del(svc, task.id, apiKey(key.value));
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "SCOPE_INSUFFICIENT");
    assert.equal((await del(svc, task.id, {})).body.code, "TOKEN_MISSING");
  });

  await t.step("two DELETEs at once: one 200, one 404", async () => {
    const task = await postTask(svc, owner.token);
    const results = await Promise.all([
      del(svc, task.id, bearer(owner.token)),
      del(svc, task.id, bearer(owner.token)),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 404]);
  });
});
