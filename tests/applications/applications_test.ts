/**
 * Applications (docs/contract.md section 15): applying, the two listings, accept / decline / withdraw,
 * acceptedCount and spotsLeft (task and account changes: applications_changes_test.ts).
 */
import assert from "node:assert/strict";
import { assertTaskIndexesConsistent } from "../tasks/task_consistency.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { apply, getJson, setStatus, type User } from "./application_fixtures.ts";

Deno.test("applying to a task: who, on which task, with what", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc, { firstName: "Ada" });
  const bob = await signUp(svc, { firstName: "Bob" });
  const task = await postTask(svc, ada.token, { maxPeople: 2 });

  await t.step("rule: anyone but the creator applies; 201 with the contract's shape", async () => {
    const res = await apply(svc, bob, task.id, { message: "  I can do it  ", price: 70.5 });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), [
      "applicantId",
      "createdAt",
      "id",
      "message",
      "price",
      "status",
      "taskId",
      "updatedAt",
    ]);
    assert.equal(res.body.status, "pending");
    assert.equal(res.body.message, "I can do it");
    assert.equal(res.body.price, 70.5);
    assert.equal(res.body.applicantId, bob.id);
    assert.equal(res.body.taskId, task.id);
  });

  await t.step("rule: a second active application is 409 ALREADY_APPLIED", async () => {
    const res = await apply(svc, bob, task.id, undefined, "/v1");
    assert.equal(res.status, 409);
    assert.equal(res.body.code, "ALREADY_APPLIED");
  });

  await t.step("rule: the creator cannot apply to their own task: 403", async () => {
    const res = await apply(svc, ada, task.id);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "FORBIDDEN");
  });

  await t.step("rule: message is 1 to 2000 characters, price >= 0 with 2 decimals", async () => {
    const carol = await signUp(svc);
    for (
      const body of [
        {},
        { message: "   " },
        { message: "x".repeat(2001) },
        { message: "ok", price: -1 },
        { message: "ok", price: 1.001 },
        { message: "ok", price: "10" },
      ]
    ) {
      const res = await apply(svc, carol, task.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, "VALIDATION_ERROR");
    }
    assert.equal((await apply(svc, carol, task.id, { message: "x".repeat(2000) })).status, 201);
  });

  await t.step("rule: unknown, deleted or completed tasks are 404 to applicants", async () => {
    const carol = await signUp(svc);
    assert.equal((await apply(svc, carol, crypto.randomUUID())).status, 404);
    const done = await postTask(svc, ada.token);
    await svc.request(`/api/v1/tasks/${done.id}`, {
      method: "PATCH",
      headers: bearer(ada.token),
      json: { status: "completed" },
    });
    assert.equal((await apply(svc, carol, done.id)).status, 404);
    const gone = await postTask(svc, ada.token);
    await svc.request(`/api/v1/tasks/${gone.id}`, { method: "DELETE", headers: bearer(ada.token) });
    assert.equal((await apply(svc, carol, gone.id)).status, 404);
  });

  await t.step("rule: after a withdrawal the same user may apply again", async () => {
    const dan = await signUp(svc);
    const first = await apply(svc, dan, task.id);
    assert.equal((await setStatus(svc, dan, first.body.id, "withdrawn")).status, 200);
    assert.equal((await apply(svc, dan, task.id)).status, 201);
  });
});

Deno.test("application scopes: applications:read lists, applications:write applies", async () => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const bob = await signUp(svc);
  const task = await postTask(svc, ada.token);
  const reader = await createKey(svc, bob.token, { scopes: ["applications:read"] });
  const writer = await createKey(svc, bob.token, { scopes: ["applications:write"] });
  const denied = await svc.request(`/v1/tasks/${task.id}/applications`, {
    method: "POST",
    headers: apiKey(reader.value),
    json: { message: "hi" },
  });
  assert.equal(denied.status, 403);
  assert.equal((await denied.json()).scope, "applications:write");
  const ok = await svc.request(`/v1/tasks/${task.id}/applications`, {
    method: "POST",
    headers: apiKey(writer.value),
    json: { message: "hi" },
  });
  assert.equal(ok.status, 201);
  await ok.body?.cancel();
  const listDenied = await svc.request("/v1/applications/me", { headers: apiKey(writer.value) });
  assert.equal(listDenied.status, 403);
  assert.equal((await listDenied.json()).scope, "applications:read");
  const list = await svc.request("/v1/applications/me", { headers: apiKey(reader.value) });
  assert.equal(list.status, 200);
  assert.equal((await list.json()).length, 1);
});

Deno.test("listing applications: the creator's per task, the applicant's own", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const task = await postTask(svc, ada.token, { maxPeople: 5, title: "Paint the fence" });
  const applicants: User[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const user = await signUp(svc);
    applicants.push(user);
    ids.push((await apply(svc, user, task.id, { message: `offer ${i}` })).body.id);
  }

  await t.step("rule: the creator pages through every application, newest first", async () => {
    const seen: string[] = [];
    let path: string | null = `/api/v1/tasks/${task.id}/applications?limit=2`;
    while (path) {
      const page = await getJson(svc, path, ada);
      assert.equal(page.status, 200);
      seen.push(...page.body.map((a: { id: string }) => a.id));
      const cursor = page.headers.get("X-Next-Cursor");
      path = cursor ? `/api/v1/tasks/${task.id}/applications?limit=2&cursor=${cursor}` : null;
    }
    assert.deepEqual(seen, [...ids].reverse());
  });

  await t.step("rule: applications of another user's task are 404 to others", async () => {
    const res = await getJson(svc, `/v1/tasks/${task.id}/applications`, applicants[0]);
    assert.equal(res.status, 404);
    const stranger = await signUp(svc);
    const patch = await setStatus(svc, stranger, ids[0], "accepted");
    assert.equal(patch.status, 404);
    const withdraw = await setStatus(svc, stranger, ids[0], "withdrawn");
    assert.equal(withdraw.status, 404);
  });

  await t.step("rule: a cursor of another task's listing is 400 INVALID_CURSOR", async () => {
    const other = await postTask(svc, ada.token);
    const page = await getJson(svc, `/v1/tasks/${task.id}/applications?limit=1`, ada);
    const cursor = page.headers.get("X-Next-Cursor");
    const res = await getJson(svc, `/v1/tasks/${other.id}/applications?cursor=${cursor}`, ada);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_CURSOR");
  });

  await t.step("rule: an applicant lists their own, each with its task's summary", async () => {
    const res = await getJson(svc, "/v1/applications/me", applicants[2]);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 1);
    assert.equal(res.body[0].id, ids[2]);
    assert.deepEqual(res.body[0].task, {
      id: task.id,
      title: "Paint the fence",
      budget: task.budget,
      currency: task.currency,
      status: "published",
    });
  });
});

Deno.test("accepting, declining and withdrawing", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const task = await postTask(svc, ada.token, { maxPeople: 2 });
  const users = [await signUp(svc), await signUp(svc), await signUp(svc), await signUp(svc)];
  const ids: string[] = [];
  for (const user of users) ids.push((await apply(svc, user, task.id)).body.id);
  const taskView = async () => (await getJson(svc, `/v1/tasks/${task.id}`, ada)).body;

  await t.step("rule: a new task has acceptedCount 0 and spotsLeft maxPeople", () => {
    assert.equal(task.acceptedCount, 0);
    assert.equal(task.spotsLeft, 2);
  });

  await t.step("rule: the applicant cannot accept their own application: 409", async () => {
    const res = await setStatus(svc, users[0], ids[0], "accepted");
    assert.equal(res.status, 409);
    assert.equal(res.body.code, "INVALID_TRANSITION");
  });

  await t.step("rule: the creator cannot withdraw an application: 409", async () => {
    const res = await setStatus(svc, ada, ids[0], "withdrawn");
    assert.equal(res.status, 409);
    assert.equal(res.body.code, "INVALID_TRANSITION");
  });

  await t.step("rule: the creator accepts; the task's counts follow everywhere", async () => {
    const res = await setStatus(svc, ada, ids[0], "accepted");
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "accepted");
    const view = await taskView();
    assert.equal(view.acceptedCount, 1);
    assert.equal(view.spotsLeft, 1);
    const list = (await getJson(svc, "/v1/tasks", ada)).body;
    assert.equal(list.find((x: { id: string }) => x.id === task.id).acceptedCount, 1);
    const explored = (await getJson(svc, "/v1/tasks/explore?cityName=paris", ada)).body;
    assert.equal(explored.find((x: { id: string }) => x.id === task.id).spotsLeft, 1);
  });

  await t.step("rule: accepting an accepted application is 409 INVALID_TRANSITION", async () => {
    const res = await setStatus(svc, ada, ids[0], "accepted");
    assert.equal(res.status, 409);
    assert.equal(res.body.code, "INVALID_TRANSITION");
  });

  await t.step("rule: an acceptance past maxPeople is 409 TASK_FULL", async () => {
    assert.equal((await setStatus(svc, ada, ids[1], "accepted")).status, 200);
    const res = await setStatus(svc, ada, ids[2], "accepted");
    assert.equal(res.status, 409);
    assert.equal(res.body.code, "TASK_FULL");
    const view = await taskView();
    assert.equal(view.acceptedCount, 2);
    assert.equal(view.spotsLeft, 0);
  });

  await t.step("rule: explore hasSpots=true hides a full task", async () => {
    const full = (await getJson(svc, "/v1/tasks/explore?cityName=paris&hasSpots=true", ada)).body;
    assert.equal(full.find((x: { id: string }) => x.id === task.id), undefined);
    const all = (await getJson(svc, "/v1/tasks/explore?cityName=paris", ada)).body;
    assert.ok(all.find((x: { id: string }) => x.id === task.id));
  });

  await t.step("rule: lowering maxPeople below acceptedCount is 409", async () => {
    const res = await svc.request(`/v1/tasks/${task.id}`, {
      method: "PATCH",
      headers: bearer(ada.token),
      json: { maxPeople: 1 },
    });
    assert.equal(res.status, 409);
    assert.equal((await res.json()).code, "INVALID_TRANSITION");
  });

  await t.step("rule: the applicant withdraws an accepted one, freeing its spot", async () => {
    const res = await setStatus(svc, users[1], ids[1], "withdrawn");
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "withdrawn");
    assert.equal((await taskView()).spotsLeft, 1);
    const again = await setStatus(svc, users[1], ids[1], "withdrawn");
    assert.equal(again.status, 409);
  });

  await t.step("rule: the creator declines a pending one; declined is final", async () => {
    const res = await setStatus(svc, ada, ids[2], "declined");
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "declined");
    assert.equal((await setStatus(svc, ada, ids[2], "accepted")).status, 409);
    assert.equal((await setStatus(svc, users[2], ids[2], "withdrawn")).status, 409);
  });

  await t.step("rule: every index entry and card agrees with the task's count", async () => {
    await assertTaskIndexesConsistent(svc.kv);
  });

  await t.step("rule: an unknown status is 400, an unknown application 404", async () => {
    assert.equal((await setStatus(svc, ada, ids[3], "pending")).status, 400);
    assert.equal((await setStatus(svc, ada, crypto.randomUUID(), "accepted")).status, 404);
  });
});
