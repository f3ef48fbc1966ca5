import assert from "node:assert/strict";
import { projects } from "../../kv/keyspace.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

Deno.test("projects belong to their creator: create, list, get, update, delete", async (t) => {
  const start = Date.now();
  let clock = start;
  await using svc = await setup({ deps: { now: () => clock } });
  const ada = await signUp(svc, { firstName: "Ada" });
  const bob = await signUp(svc, { firstName: "Bob" });
  const key = await createKey(svc, ada.token, { scopes: ["projects:read", "projects:write"] });
  const asAda = apiKey(key.value);
  const create = (json: unknown, headers: HeadersInit = asAda) =>
    svc.request("/v1/projects", { method: "POST", json, headers });

  let garden: { id: string; createdAt: string };

  await t.step("POST /v1/projects answers 201 with the project and Location", async () => {
    const res = await create({ name: "  Garden  ", description: "Plant tomatoes" });
    assert.equal(res.status, 201);
    garden = await res.json();
    assert.deepEqual(Object.keys(garden).sort(), [
      "createdAt",
      "description",
      "id",
      "name",
      "updatedAt",
    ]);
    assert.equal((garden as unknown as { name: string }).name, "Garden", "name is trimmed");
    assert.match(garden.createdAt, ISO_MS);
    assert.equal(res.headers.get("Location"), `/v1/projects/${garden.id}`);
  });

  await t.step('description defaults to ""', async () => {
    const res = await create({ name: "Kitchen" });
    assert.equal((await res.json()).description, "");
  });

  await t.step("name 1 to 100 characters, description up to 2000, else 400", async () => {
    for (
      const body of [
        {},
        { name: "" },
        { name: "   " },
        { name: "x".repeat(101) },
        { name: "ok", description: "x".repeat(2001) },
        { name: 42 },
      ]
    ) {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal((await res.json()).code, "VALIDATION_ERROR");
    }
    const edge = await create({ name: "x".repeat(100), description: "y".repeat(2000) });
    assert.equal(edge.status, 201);
    const { id } = await edge.json();
    const del = await svc.request(`/v1/projects/${id}`, { method: "DELETE", headers: asAda });
    await del.body?.cancel();
  });

  await t.step("GET /v1/projects/:id answers the owner's project", async () => {
    const res = await svc.request(`/v1/projects/${garden.id}`, { headers: asAda });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).name, "Garden");
  });

  await t.step("another user's project answers 404 NOT_FOUND, for every verb", async () => {
    const asBob = bearer(bob.token);
    const path = `/v1/projects/${garden.id}`;
    for (
      const init of [
        { headers: asBob },
        { method: "PUT", headers: asBob, json: { name: "Mine now" } },
        { method: "DELETE", headers: asBob },
      ]
    ) {
      const res = await svc.request(path, init);
      assert.equal(res.status, 404, init.method ?? "GET");
      assert.equal((await res.json()).code, "NOT_FOUND");
    }
    const list = await svc.request("/v1/projects", { headers: asBob });
    assert.deepEqual(await list.json(), [], "nor is it in their listing");
  });

  await t.step("PUT /v1/projects/:id changes only the members sent", async () => {
    clock += 60_000;
    const res = await svc.request(`/v1/projects/${garden.id}`, {
      method: "PUT",
      headers: asAda,
      json: { description: "Plant tomatoes and basil" },
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.name, "Garden");
    assert.equal(body.description, "Plant tomatoes and basil");
    assert.equal(body.createdAt, garden.createdAt);
    assert.equal(body.updatedAt, new Date(start + 60_000).toISOString());
  });

  await t.step("the listing shows the update", async () => {
    const res = await svc.request("/v1/projects", { headers: asAda });
    const item = (await res.json()).find((p: { id: string }) => p.id === garden.id);
    assert.equal(item.description, "Plant tomatoes and basil");
  });

  await t.step("PUT with a bad member answers 400 VALIDATION_ERROR", async () => {
    const res = await svc.request(`/v1/projects/${garden.id}`, {
      method: "PUT",
      headers: asAda,
      json: { name: "" },
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, "VALIDATION_ERROR");
  });

  await t.step(
    'DELETE answers 200 {"message":"Project deleted"} and keeps the record',
    async () => {
      const res = await svc.request(`/v1/projects/${garden.id}`, {
        method: "DELETE",
        headers: asAda,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { message: "Project deleted" });
      const stored = await svc.kv.get<{ deletedAt: string | null }>(projects.record(garden.id));
      assert.match(stored.value!.deletedAt!, ISO_MS, "soft delete keeps deletedAt");
    },
  );

  await t.step("a deleted project answers 404 and leaves the listing", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const res = await svc.request(`/v1/projects/${garden.id}`, {
        method,
        headers: asAda,
        ...(method === "PUT" ? { json: { name: "Back" } } : {}),
      });
      assert.equal(res.status, 404, method);
      await res.body?.cancel();
    }
    const list = await svc.request("/v1/projects", { headers: asAda });
    assert.ok(!(await list.json()).some((p: { id: string }) => p.id === garden.id));
  });

  await t.step("an id that is not a UUID answers 404 NOT_FOUND", async () => {
    const res = await svc.request("/v1/projects/42", { headers: asAda });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "NOT_FOUND");
  });
});

Deno.test("GET /v1/projects is cursor-paged newest first", async (t) => {
  // A clock that ticks on every read, so items made back to back differ in createdAt.
  let tick = Date.now();
  await using svc = await setup({ deps: { now: () => ++tick } });
  const ada = await signUp(svc);
  const headers = bearer(ada.token);
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    const res = await svc.request("/v1/projects", {
      method: "POST",
      headers,
      json: { name: `P${i}` },
    });
    ids.push((await res.json()).id);
  }

  await t.step("limit=3 returns every project once, newest first", async () => {
    const seen: string[] = [];
    let url: string | null = "/v1/projects?limit=3";
    let pages = 0;
    while (url) {
      // From this machine, so Link URLs are absolute (docs/security.md, "Links").
      const res: Response = await svc.request(url, { headers, ip: "127.0.0.1" });
      seen.push(...(await res.json()).map((p: { id: string }) => p.id));
      pages++;
      const link = res.headers.get("Link");
      url = link ? new URL(/^<([^>]+)>/.exec(link)![1]).href : null;
      if (link) assert.ok(res.headers.get("X-Next-Cursor"));
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...ids].reverse());
  });

  await t.step("deleting items between pages skips nothing that remains", async () => {
    const first = await svc.request("/v1/projects?limit=3", { headers });
    const seen: string[] = (await first.json()).map((p: { id: string }) => p.id);
    // delete the first item of the next page and one already seen
    for (const id of [ids[3], ids[6]]) {
      const res = await svc.request(`/v1/projects/${id}`, { method: "DELETE", headers });
      await res.body?.cancel();
    }
    let cursor = first.headers.get("X-Next-Cursor");
    while (cursor) {
      const res = await svc.request(`/v1/projects?limit=3&cursor=${cursor}`, { headers });
      seen.push(...(await res.json()).map((p: { id: string }) => p.id));
      cursor = res.headers.get("X-Next-Cursor");
    }
    assert.deepEqual(seen, [ids[6], ids[5], ids[4], ids[2], ids[1], ids[0]]);
  });

  await t.step("another user's cursor answers 400 INVALID_CURSOR", async () => {
    const first = await svc.request("/v1/projects?limit=1", { headers });
    await first.body?.cancel();
    const bob = await signUp(svc);
    const res = await svc.request(
      `/v1/projects?cursor=${first.headers.get("X-Next-Cursor")}`,
      { headers: bearer(bob.token) },
    );
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, "INVALID_CURSOR");
  });

  await t.step("a tampered cursor answers 400 INVALID_CURSOR", async () => {
    const res = await svc.request("/v1/projects?cursor=eyJwIjoiYWJjIiwiZiI6Inh5eiJ9", {
      headers,
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, "INVALID_CURSOR");
  });
});

Deno.test("projects scopes: projects:read lists and reads, projects:write changes", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const reader = await createKey(svc, ada.token, { scopes: ["projects:read"] });
  const writer = await createKey(svc, ada.token, { scopes: ["projects:write"] });
  const created = await svc.request("/v1/projects", {
    method: "POST",
    headers: apiKey(writer.value),
    json: { name: "Scoped" },
  });
  assert.equal(created.status, 201);
  const { id } = await created.json();

  const cases: [string, string, string, unknown?][] = [
    ["GET", "/v1/projects", "projects:read"],
    ["GET", `/v1/projects/${id}`, "projects:read"],
    ["POST", "/v1/projects", "projects:write", { name: "X" }],
    ["PUT", `/v1/projects/${id}`, "projects:write", { name: "Y" }],
    ["DELETE", `/v1/projects/${id}`, "projects:write"],
  ];
  for (const [method, path, scope, json] of cases) {
    await t.step(`${method} ${path.replace(id, ":id")} needs ${scope}`, async () => {
      const wrong = scope === "projects:read" ? writer : reader;
      const res = await svc.request(path, { method, json, headers: apiKey(wrong.value) });
      assert.equal(res.status, 403);
      const body = await res.json();
      assert.equal(body.code, "SCOPE_INSUFFICIENT");
      assert.equal(body.scope, scope);
    });
  }

  await t.step("projects:read key reads the project", async () => {
    const res = await svc.request(`/v1/projects/${id}`, { headers: apiKey(reader.value) });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  await t.step("without a credential: 401 TOKEN_MISSING", async () => {
    const res = await svc.request("/api/v1/projects");
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "TOKEN_MISSING");
  });
});
