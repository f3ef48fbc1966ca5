/** What task and account changes do to applications, and applying again after a decline. */
import assert from "node:assert/strict";
import { purgeUser } from "../../kv/users/user_purge.ts";
import { bearer, setup, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { apply, getJson, setStatus } from "./application_fixtures.ts";

Deno.test("task and account changes settle applications", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const bob = await signUp(svc);
  const carol = await signUp(svc);

  await t.step("rule: completing a task declines its pending applications", async () => {
    const task = await postTask(svc, ada.token, { maxPeople: 3 });
    const accepted = (await apply(svc, bob, task.id)).body.id;
    const pending = (await apply(svc, carol, task.id)).body.id;
    await setStatus(svc, ada, accepted, "accepted");
    const done = await svc.request(`/v1/tasks/${task.id}`, {
      method: "PATCH",
      headers: bearer(ada.token),
      json: { status: "completed" },
    });
    assert.equal(done.status, 200);
    const list = (await getJson(svc, `/v1/tasks/${task.id}/applications`, ada)).body;
    const byId = new Map(list.map((a: { id: string; status: string }) => [a.id, a.status]));
    assert.equal(byId.get(pending), "declined");
    assert.equal(byId.get(accepted), "accepted");
    const mine = (await getJson(svc, "/v1/applications/me", carol)).body;
    assert.equal(mine[0].status, "declined");
    assert.equal(mine[0].task.status, "completed");
    assert.equal((await setStatus(svc, bob, accepted, "withdrawn")).status, 409);
    assert.equal((await setStatus(svc, carol, pending, "withdrawn")).status, 409);
  });

  await t.step("rule: deleting a task declines its pending applications", async () => {
    const task = await postTask(svc, ada.token);
    await apply(svc, bob, task.id);
    await svc.request(`/v1/tasks/${task.id}`, { method: "DELETE", headers: bearer(ada.token) });
    const mine = (await getJson(svc, "/v1/applications/me", bob)).body;
    assert.equal(mine[0].status, "declined");
    assert.equal(mine[0].task.status, "deleted");
  });

  await t.step("rule: deleting an account withdraws its applications", async () => {
    const dan = await signUp(svc);
    const task = await postTask(svc, ada.token, { maxPeople: 2 });
    const accepted = (await apply(svc, dan, task.id)).body.id;
    await setStatus(svc, ada, accepted, "accepted");
    const other = await postTask(svc, bob.token);
    const pending = (await apply(svc, dan, other.id)).body.id;
    await svc.request(`/v1/users/${dan.id}`, { method: "DELETE", headers: bearer(dan.token) });
    // Between the deletion and its purge, the account's applications cannot be accepted.
    const res = await setStatus(svc, bob, pending, "accepted");
    assert.equal(res.status, 409);
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: dan.id });
    const onTask = (await getJson(svc, `/v1/tasks/${task.id}/applications`, ada)).body;
    assert.equal(onTask[0].status, "withdrawn");
    assert.equal((await getJson(svc, `/v1/tasks/${task.id}`, ada)).body.spotsLeft, 2);
    const onOther = (await getJson(svc, `/v1/tasks/${other.id}/applications`, bob)).body;
    assert.equal(onOther[0].status, "withdrawn");
  });

  await t.step("rule: deleting an account declines applications on its tasks", async () => {
    const erin = await signUp(svc);
    const task = await postTask(svc, erin.token);
    await apply(svc, carol, task.id);
    await svc.request(`/v1/users/${erin.id}`, { method: "DELETE", headers: bearer(erin.token) });
    await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: erin.id });
    const mine = (await getJson(svc, "/v1/applications/me", carol)).body;
    const onErin = mine.find((a: { taskId: string }) => a.taskId === task.id);
    assert.equal(onErin.status, "declined");
    assert.equal(onErin.task.status, "deleted");
  });
});

Deno.test("a declined applicant can apply again at once, without limit: no longer, a decline stays", async () => {
  await using svc = await setup();
  const ada = await signUp(svc, { firstName: "Ada" });
  const bob = await signUp(svc, { firstName: "Bob" });
  const cid = await signUp(svc, { firstName: "Cid" });
  const task = await postTask(svc, ada.token, { maxPeople: 3 });

  const first = await apply(svc, bob, task.id);
  assert.equal(first.status, 201);
  assert.equal((await setStatus(svc, ada, first.body.id, "declined")).status, 200);
  for (let i = 0; i < 3; i++) {
    const again = await apply(svc, bob, task.id, { message: `please, attempt ${i + 2}` });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "APPLICATION_DECLINED");
  }
  const listed = await getJson(svc, `/api/v1/tasks/${task.id}/applications`, ada);
  assert.deepEqual(
    listed.body.map((a: { id: string; status: string }) => [a.id, a.status]),
    [[first.body.id, "declined"]],
    "nothing new was stored",
  );

  // Declining an accepted application is a decline too.
  const accepted = await apply(svc, cid, task.id);
  assert.equal((await setStatus(svc, ada, accepted.body.id, "accepted")).status, 200);
  assert.equal((await setStatus(svc, ada, accepted.body.id, "declined")).status, 200);
  assert.equal((await apply(svc, cid, task.id)).body.code, "APPLICATION_DECLINED");

  // A withdrawal is the applicant's own choice: they may apply again.
  const dan = await signUp(svc, { firstName: "Dan" });
  const withdrawn = await apply(svc, dan, task.id);
  assert.equal((await setStatus(svc, dan, withdrawn.body.id, "withdrawn")).status, 200);
  assert.equal((await apply(svc, dan, task.id)).status, 201);
});
