/**
 * Cancelling a task (docs/contract.md section 20): the answer, every error, what the task's
 * applications read from the same commit, and where the task is seen afterwards.
 */
import assert from "node:assert/strict";
import { apiKey, createKey, setup, signUp } from "../helpers.ts";
import { assertTaskIndexesConsistent } from "../tasks/task_consistency.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { applyTo, cancel, send, setStatus, staffedTask, users } from "./fixtures.ts";

Deno.test("the creator cancels a published task: 200 with the task cancelled, its reason and note", async () => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const task = await postTask(svc, ada.token);
  const at = Date.now() + 60_000;
  svc.deps.now = () => at;
  const res = await cancel(svc, ada, task.id, { reason: "helper_no_show", note: "  Nobody came " });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, "cancelled");
  assert.equal(res.body.cancelledAt, new Date(at).toISOString());
  assert.deepEqual(res.body.cancellation, { reason: "helper_no_show", note: "Nobody came" });
  assert.equal(res.body.authorFirstName, "Test");
  const read = await send(svc, `/api/v1/tasks/${task.id}`, { token: ada.token });
  assert.equal(read.status, 200);
  assert.deepEqual(read.body, res.body, "GET shows what the cancellation answered");
  const other = await postTask(svc, ada.token);
  const noNote = await cancel(svc, ada, other.id, { reason: "other", note: "   " });
  assert.deepEqual(noNote.body.cancellation, { reason: "other", note: null }, "blank: no note");
  const published = await send(svc, `/api/v1/tasks/${(await postTask(svc, ada.token)).id}`);
  assert.equal(published.body.cancelledAt, null);
  assert.equal(published.body.cancellation, null);
});

Deno.test("a bad cancellation body is 400 and changes nothing", async () => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const task = await postTask(svc, ada.token);
  const cases: [unknown, string, string][] = [
    [{}, "VALIDATION_ERROR", "reason"],
    [{ reason: "bored" }, "VALIDATION_ERROR", "reason"],
    [{ reason: "other", note: "x".repeat(501) }, "VALIDATION_ERROR", "note"],
    [{ reason: "other", note: 5 }, "VALIDATION_ERROR", "note"],
    [{ reason: "other", extra: true }, "UNKNOWN_PARAMETER", "extra"],
  ];
  for (const [json, code, path] of cases) {
    const res = await cancel(svc, ada, task.id, json);
    assert.equal(res.status, 400, JSON.stringify(json));
    assert.equal(res.body.code, code);
    assert.ok(
      res.body.errors.some((e: { path: string }) => e.path === path),
      JSON.stringify(res.body),
    );
  }
  const raw = await svc.request(`/api/v1/tasks/${task.id}/cancel`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ada.token}`, "Content-Type": "application/json" },
    body: "{not json",
  });
  assert.equal(raw.status, 400);
  assert.equal((await raw.json()).code, "INVALID_JSON");
  const ok = await cancel(svc, ada, task.id, { reason: "other", note: "x".repeat(500) });
  assert.equal(ok.status, 200, "500 characters is a note");
});

Deno.test("who may cancel what: 409 when not published, 403 another's, 404 unseen, 401 and 403 scope", async () => {
  await using svc = await setup();
  const [ada, bob] = await users(svc, 2);
  const task = await postTask(svc, ada.token);
  assert.equal((await cancel(svc, bob, task.id)).body.code, "FORBIDDEN");
  assert.equal((await cancel(svc, ada, task.id)).status, 200);
  const again = await cancel(svc, ada, task.id);
  assert.equal(again.status, 409);
  assert.equal(again.body.code, "INVALID_TRANSITION");
  const completed = await postTask(svc, ada.token);
  await send(svc, `/api/v1/tasks/${completed.id}`, {
    method: "PATCH",
    token: ada.token,
    json: { status: "completed" },
  });
  assert.equal((await cancel(svc, ada, completed.id)).body.code, "INVALID_TRANSITION");
  assert.equal((await cancel(svc, bob, completed.id)).status, 404, "another's completed task");
  const deleted = await postTask(svc, ada.token);
  await send(svc, `/api/v1/tasks/${deleted.id}`, { method: "DELETE", token: ada.token });
  assert.equal((await cancel(svc, ada, deleted.id)).status, 404);
  assert.equal((await cancel(svc, ada, crypto.randomUUID())).status, 404);
  assert.equal((await cancel(svc, ada, "not-a-uuid")).status, 404);
  const edit = await send(svc, `/api/v1/tasks/${task.id}`, {
    method: "PATCH",
    token: ada.token,
    json: { title: "Another" },
  });
  assert.equal(edit.body.code, "INVALID_TRANSITION", "a cancelled task is not edited");
  const complete = await send(svc, `/api/v1/tasks/${task.id}`, {
    method: "PATCH",
    token: ada.token,
    json: { status: "completed" },
  });
  assert.equal(complete.body.code, "INVALID_TRANSITION", "nor completed");

  const open = await postTask(svc, ada.token);
  const anonymous = await svc.request(`/api/v1/tasks/${open.id}/cancel`, {
    method: "POST",
    json: { reason: "other" },
  });
  assert.equal(anonymous.status, 401);
  const reader = await createKey(svc, ada.token, { scopes: ["tasks:read"] });
  const scoped = await svc.request(`/api/v1/tasks/${open.id}/cancel`, {
    method: "POST",
    headers: apiKey(reader.value),
    json: { reason: "other" },
  });
  assert.equal(scoped.status, 403);
  assert.equal((await scoped.json()).code, "SCOPE_INSUFFICIENT");
  const writer = await createKey(svc, ada.token, { scopes: ["tasks:write"] });
  const byKey = await svc.request(`/v1/tasks/${open.id}/cancel`, {
    method: "POST",
    headers: apiKey(writer.value),
    json: { reason: "found_someone_else" },
  });
  assert.equal(byKey.status, 200, "an API key with tasks:write, on the /v1 prefix");
  await assertTaskIndexesConsistent(svc.kv);
});

Deno.test("from the cancellation's commit: pending applications read declined, accepted ones cancelled", async () => {
  await using svc = await setup();
  const [ada, bob, cid, dee, eve] = await users(svc, 5);
  const { task, acceptedIds, pendingIds } = await staffedTask(svc, {
    owner: ada,
    accepted: [bob, cid],
    pending: [dee],
    maxPeople: 3,
  });
  const withdrawn = await applyTo(svc, eve, task.id);
  assert.equal((await setStatus(svc, eve, withdrawn, "withdrawn")).status, 200);
  const at = Date.now() + 60_000;
  svc.deps.now = () => at;
  assert.equal((await cancel(svc, ada, task.id)).status, 200);
  // No job runs in this service: what the listings show is the rule, not a later write.
  const listed = await send(svc, `/api/v1/tasks/${task.id}/applications`, { token: ada.token });
  type Listed = { id: string; status: string; updatedAt: string };
  const status = new Map<string, Listed>(listed.body.map((a: Listed) => [a.id, a]));
  for (const id of acceptedIds) {
    assert.equal(status.get(id)!.status, "cancelled");
    assert.equal(status.get(id)!.updatedAt, new Date(at).toISOString());
  }
  assert.equal(status.get(pendingIds[0])!.status, "declined");
  assert.equal(status.get(withdrawn)!.status, "withdrawn", "a settled application stays as it was");
  const mine = await send(svc, "/api/v1/applications/me", { token: bob.token });
  assert.equal(mine.body[0].status, "cancelled");
  assert.equal(mine.body[0].task.status, "cancelled");
  const moves: [typeof ada, string, string][] = [
    [bob, acceptedIds[0], "withdrawn"],
    [ada, acceptedIds[1], "declined"],
    [ada, pendingIds[0], "accepted"],
    [dee, pendingIds[0], "withdrawn"],
  ];
  for (const [who, id, to] of moves) {
    const res = await setStatus(svc, who, id, to);
    assert.equal(res.status, 409, `${to}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, "INVALID_TRANSITION");
  }
  const late = await send(svc, `/api/v1/tasks/${task.id}/applications`, {
    method: "POST",
    token: (await signUp(svc)).token,
    json: { message: "Still open?" },
  });
  assert.equal(late.status, 404, "a cancelled task takes no application");
  const task2 = await send(svc, `/api/v1/tasks/${task.id}`, { token: ada.token });
  assert.equal(task2.body.acceptedCount, 2, "the count keeps who was accepted");
});

Deno.test("a cancelled task is seen by its creator and the helpers accepted at the cancellation only", async () => {
  await using svc = await setup();
  const [ada, bob, cid, dee, eve] = await users(svc, 5);
  const { task } = await staffedTask(svc, {
    owner: ada,
    accepted: [bob, dee],
    pending: [cid],
    maxPeople: 3,
  });
  // Dee was accepted, then withdrew: no longer a helper when the task is cancelled.
  const deeApp = (await send(svc, "/api/v1/applications/me", { token: dee.token })).body[0].id;
  assert.equal((await setStatus(svc, dee, deeApp, "withdrawn")).status, 200);
  assert.equal((await cancel(svc, ada, task.id)).status, 200);
  for (const user of [ada, bob]) {
    const res = await send(svc, `/api/v1/tasks/${task.id}`, { token: user.token });
    assert.equal(res.status, 200, user === ada ? "creator" : "accepted helper");
    assert.equal(res.body.status, "cancelled");
  }
  for (const user of [cid, dee, eve]) {
    const res = await send(svc, `/api/v1/tasks/${task.id}`, { token: user.token });
    assert.equal(res.status, 404);
  }
  assert.equal((await send(svc, `/api/v1/tasks/${task.id}`)).status, 404, "anonymous");
  const key = await createKey(svc, bob.token, { scopes: ["profile:read"] });
  const noScope = await svc.request(`/api/v1/tasks/${task.id}`, { headers: apiKey(key.value) });
  assert.equal(noScope.status, 403, "a helper's key without tasks:read");
  await noScope.body?.cancel();
  const apps = await send(svc, `/api/v1/tasks/${task.id}/applications`, { token: bob.token });
  assert.equal(apps.status, 404, "a helper does not list the task's applications");
  await send(svc, `/api/v1/tasks/${task.id}`, { method: "DELETE", token: ada.token });
  const gone = await send(svc, `/api/v1/tasks/${task.id}`, { token: bob.token });
  assert.equal(gone.status, 404, "deleted after its cancellation: nobody sees it");
});

Deno.test("a cancelled task leaves explore and the published listings, and is listed as cancelled", async () => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const kept = await postTask(svc, ada.token, { title: "Paint the fence" });
  const dropped = await postTask(svc, ada.token, { title: "Paint the door" });
  assert.equal((await cancel(svc, ada, dropped.id)).status, 200);
  const explore = await send(svc, "/api/v1/tasks/explore?search=paint&cityName=Paris");
  assert.deepEqual(explore.body.map((t: { id: string }) => t.id), [kept.id]);
  const near = await send(
    svc,
    "/api/v1/tasks/explore?latitude=48.85&longitude=2.35&radiusKm=20&sort=distance",
  );
  assert.deepEqual(near.body.map((t: { id: string }) => t.id), [kept.id]);
  const published = await send(svc, "/api/v1/tasks/me/status", { token: ada.token });
  assert.deepEqual(published.body.map((t: { id: string }) => t.id), [kept.id]);
  const cancelled = await send(svc, "/api/v1/tasks/me/status?status=cancelled", {
    token: ada.token,
  });
  assert.deepEqual(cancelled.body.map((t: { id: string; status: string }) => [t.id, t.status]), [
    [dropped.id, "cancelled"],
  ]);
  assert.equal(cancelled.headers.get("X-Total-Count"), "1");
  const searched = await send(svc, "/api/v1/tasks/me/status?status=cancelled&search=door", {
    token: ada.token,
  });
  assert.equal(searched.body.length, 1, "the filtered status listing too");
  const all = await send(svc, "/api/v1/tasks", { token: ada.token });
  assert.equal(all.body.length, 2, "the caller's own listing shows every status");
  const bad = await send(svc, "/api/v1/tasks/me/status?status=gone", { token: ada.token });
  assert.equal(bad.status, 400);
  await assertTaskIndexesConsistent(svc.kv);
});

Deno.test("reviews on a cancelled task: 409 TASK_NOT_COMPLETED for its parties, 404 for others", async () => {
  await using svc = await setup();
  const [ada, bob, cid] = await users(svc, 3);
  const { task } = await staffedTask(svc, { owner: ada, accepted: [bob], pending: [cid] });
  assert.equal((await cancel(svc, ada, task.id)).status, 200);
  const pairs: [typeof ada, string, number, string][] = [
    [ada, bob.id, 409, "TASK_NOT_COMPLETED"],
    [bob, ada.id, 409, "TASK_NOT_COMPLETED"],
    [cid, ada.id, 404, "NOT_FOUND"],
  ];
  for (const [from, revieweeId, status, code] of pairs) {
    const res = await send(svc, `/api/v1/tasks/${task.id}/reviews`, {
      method: "POST",
      token: from.token,
      json: { revieweeId, rating: 4 },
    });
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.code, code);
  }
});
