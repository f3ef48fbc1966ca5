import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { postTask, taskBody } from "./task_fixtures.ts";
import {
  CREATED_FIELDS,
  del,
  DETAIL_FIELDS,
  get,
  ISO_MS,
  LIST_FIELDS,
  patch,
  UUID,
} from "./tasks_fixtures.ts";

Deno.test("task response shapes carry exactly the fields of spec 2.3 and docs/contract.md section 6", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc, { firstName: "Ada" });
  const body = {
    title: "Walk the dog",
    description: "Twice a day, 30 minutes",
    budget: 25.5,
    currency: "USD",
    location: { coordinates: [-73.98, 40.75], type: "city", name: "New York", countryCode: "US" },
    requirement: "Likes dogs",
    images: ["https://img.example.com/dog.jpg"],
  };
  const res = await svc.request("/api/v1/tasks", {
    method: "POST",
    headers: bearer(ada.token),
    json: body,
  });
  const created = await res.json();

  await t.step("POST /tasks answers 201 with Location: /api/v1/tasks/<id>", () => {
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("Location"), `/api/v1/tasks/${created.id}`);
  });

  await t.step(
    "the create response has exactly id, title, description, budget, currency, status, createdAt, location, requirement, dueDate, maxPeople, acceptedCount, spotsLeft, updatedAt, completedAt, cancelledAt, cancellation",
    () => {
      assert.deepEqual(Object.keys(created).sort(), CREATED_FIELDS);
      assert.match(created.id, UUID);
      assert.equal(created.title, body.title);
      assert.equal(created.description, body.description);
      assert.equal(created.budget, 25.5);
      assert.equal(created.currency, "USD");
      assert.equal(created.status, "published");
      assert.match(created.createdAt, ISO_MS);
      assert.equal(created.updatedAt, created.createdAt);
      assert.deepEqual(created.location, body.location);
      assert.equal(created.requirement, "Likes dogs");
      assert.equal(created.dueDate, null, "dueDate is null when absent");
      assert.equal(created.maxPeople, 1, "maxPeople defaults to 1");
      assert.equal(created.completedAt, null, "completedAt is null until completed");
      assert.equal(created.cancelledAt, null, "cancelledAt is null unless cancelled");
      assert.equal(created.cancellation, null);
    },
  );

  await t.step(
    "the single response adds authorFirstName, authorProfilePic, images, cities",
    async () => {
      const { status, body: task } = await get(svc, created.id);
      assert.equal(status, 200);
      assert.deepEqual(Object.keys(task).sort(), DETAIL_FIELDS);
      for (const field of CREATED_FIELDS) assert.deepEqual(task[field], created[field], field);
      assert.equal(task.authorFirstName, "Ada");
      assert.equal(task.authorProfilePic, `/v1/users/${ada.id}/avatar.svg`);
      assert.deepEqual(task.images, ["https://img.example.com/dog.jpg"]);
      assert.deepEqual(task.cities, ["New York"], "cities is [location.name] for a city");
    },
  );

  await t.step(
    "the list response has exactly id, title, budget, currency, status, createdAt, acceptedCount, spotsLeft",
    async () => {
      const list = await svc.request("/api/v1/tasks", { headers: bearer(ada.token) });
      const [item] = await list.json();
      assert.deepEqual(Object.keys(item).sort(), LIST_FIELDS);
      for (const field of LIST_FIELDS) assert.deepEqual(item[field], created[field], field);
    },
  );

  await t.step("cities is [] for country, world and radius locations", async () => {
    const locations = [
      { coordinates: [2, 46], type: "country", name: "France", countryCode: "FR" },
      { coordinates: [0, 0], type: "world", name: "Remote" },
      { coordinates: [2.35, 48.85], type: "radius", name: "Around Paris", radiusKm: 30 },
    ];
    for (const location of locations) {
      const task = await postTask(svc, ada.token, { location });
      const { body: detail } = await get(svc, task.id);
      assert.deepEqual(detail.cities, [], location.type);
      assert.deepEqual(detail.location, location);
    }
  });

  await t.step("authorProfilePic is the author's own picture when set", async () => {
    const email = `pic-${crypto.randomUUID()}@example.com`;
    const password = "correct horse battery";
    const signUpRes = await svc.request("/v1/users", {
      method: "POST",
      json: { email, password, firstName: "Pic", profilePic: "https://cdn.example.com/me.png" },
    });
    await signUpRes.body?.cancel();
    const login = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email, password },
    });
    const { token } = await login.json();
    const task = await postTask(svc, token);
    const { body: detail } = await get(svc, task.id);
    assert.equal(detail.authorProfilePic, "https://cdn.example.com/me.png");
    assert.equal(detail.authorFirstName, "Pic");
  });

  await t.step("the default avatar URL serves an SVG with the author's initials", async () => {
    const avatar = await svc.request(`/v1/users/${ada.id}/avatar.svg`);
    assert.equal(avatar.status, 200);
    assert.match(avatar.headers.get("Content-Type")!, /^image\/svg\+xml/);
    const svg = await avatar.text();
    assert.match(svg, /^<svg /);
    assert.match(svg, />A<\/text>/);
    const again = await (await svc.request(`/api/v1/users/${ada.id}/avatar.svg`)).text();
    assert.equal(again, svg, "the same user always gets the same avatar");
  });

  await t.step("the avatar of an unknown user is 404", async () => {
    const res = await svc.request(`/v1/users/${crypto.randomUUID()}/avatar.svg`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "NOT_FOUND");
  });
});

Deno.test("GET /tasks/:id follows the visibility rules", async (t) => {
  await using svc = await setup();
  const owner = await signUp(svc);
  const other = await signUp(svc);
  const published = await postTask(svc, owner.token);
  const completed = await postTask(svc, owner.token);
  assert.equal(
    (await patch(svc, { id: completed.id, token: owner.token, json: { status: "completed" } }))
      .status,
    200,
  );
  const deleted = await postTask(svc, owner.token);
  assert.equal((await del(svc, deleted.id, bearer(owner.token))).status, 200);

  await t.step("a published task is public: anonymous callers see it", async () => {
    assert.equal((await get(svc, published.id)).status, 200);
  });

  await t.step("a published task is visible to another user", async () => {
    assert.equal((await get(svc, published.id, bearer(other.token))).status, 200);
  });

  await t.step("a sent credential is still checked: a bad one gets 401", async () => {
    const res = await get(svc, published.id, bearer("not-a-jwt"));
    assert.equal(res.status, 401);
    assert.equal(res.body.code, "TOKEN_INVALID");
    const badKey = await get(svc, published.id, apiKey("svc_" + "0".repeat(64)));
    assert.equal(badKey.body.code, "API_KEY_INVALID");
  });

  await t.step("a completed task is 404 for anonymous callers", async () => {
    const res = await get(svc, completed.id);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, "NOT_FOUND");
  });

  await t.step("a completed task is 404 for another user", async () => {
    assert.equal((await get(svc, completed.id, bearer(other.token))).status, 404);
  });

  await t.step("a completed task is visible to its creator", async () => {
    const res = await get(svc, completed.id, bearer(owner.token));
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "completed");
    assert.match(res.body.completedAt, ISO_MS);
  });

  await t.step("the creator's own completed task via an API key needs tasks:read", async () => {
    const writeOnly = await createKey(svc, owner.token, { scopes: ["tasks:write"] });
    const denied = await get(svc, completed.id, apiKey(writeOnly.value));
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "SCOPE_INSUFFICIENT");
    assert.equal(denied.body.scope, "tasks:read");
    const reader = await createKey(svc, owner.token, { scopes: ["tasks:read"] });
    assert.equal((await get(svc, completed.id, apiKey(reader.value))).status, 200);
  });

  await t.step("a published task needs no scope, even via an API key", async () => {
    const profileOnly = await createKey(svc, other.token, { scopes: ["profile:read"] });
    assert.equal((await get(svc, published.id, apiKey(profileOnly.value))).status, 200);
  });

  await t.step("a deleted task is 404 for everyone, its creator included", async () => {
    assert.equal((await get(svc, deleted.id)).status, 404);
    assert.equal((await get(svc, deleted.id, bearer(owner.token))).status, 404);
  });

  await t.step("an unknown UUID is 404", async () => {
    assert.equal((await get(svc, crypto.randomUUID())).status, 404);
  });

  await t.step("a path id that is not a UUID is 404 NOT_FOUND", async () => {
    for (const id of ["123", "not-a-uuid", "847a4fb7-e452-4be5-9d11-29ef7e76041"]) {
      const res = await get(svc, id);
      assert.equal(res.status, 404, id);
      assert.equal(res.body.code, "NOT_FOUND");
    }
  });

  await t.step("the same task is served under /v1 too", async () => {
    const res = await svc.request(`/v1/tasks/${published.id}`);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).id, published.id);
  });

  await t.step("a wrong method on a task answers 405 with Allow", async () => {
    const res = await svc.request(`/api/v1/tasks/${published.id}`, { method: "PUT" });
    await res.body?.cancel();
    assert.equal(res.status, 405);
    assert.match(res.headers.get("Allow")!, /GET.*PATCH.*DELETE|DELETE.*PATCH|PATCH/);
  });
});

Deno.test("POST /tasks needs tasks:write", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);

  await t.step("no credential answers 401 TOKEN_MISSING", async () => {
    const res = await svc.request("/api/v1/tasks", { method: "POST", json: {} });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "TOKEN_MISSING");
  });

  await t.step("a key without tasks:write answers 403 SCOPE_INSUFFICIENT", async () => {
    const key = await createKey(svc, user.token, { scopes: ["tasks:read"] });
    const res = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: apiKey(key.value),
      json: {},
    });
    assert.equal(res.status, 403);
    const body = await res.json();
    assert.equal(body.code, "SCOPE_INSUFFICIENT");
    assert.equal(body.scope, "tasks:write");
  });

  await t.step("a key with tasks:write creates, via X-API-Key or Bearer", async () => {
    const key = await createKey(svc, user.token, { scopes: ["tasks:write"] });
    for (const headers of [apiKey(key.value), bearer(key.value)]) {
      const res = await svc.request("/v1/tasks", {
        method: "POST",
        headers,
        json: taskBody(),
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();
    }
  });
});
