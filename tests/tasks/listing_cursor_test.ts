/** Cursors of every cursor-paged listing: `cursor=` is the first page; a cursor is its caller's. */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "../helpers.ts";
import { postTask } from "./task_fixtures.ts";

async function get(svc: TestContext, path: string, headers: HeadersInit = {}) {
  const res = await svc.request(path, { headers });
  return { res, body: await res.json() };
}

Deno.test("An empty cursor= is no cursor: every cursor listing answers its first page", async (t) => {
  await using svc = await setup();
  const me = await signUp(svc);
  await signUp(svc);
  await postTask(svc, me.token);
  await postTask(svc, me.token);
  for (const name of ["a", "b"]) {
    const res = await svc.request("/v1/projects", {
      method: "POST",
      headers: bearer(me.token),
      json: { name },
    });
    await res.body?.cancel();
  }
  for (const path of ["/v1/users", "/v1/projects", "/api/v1/tasks", "/api/v1/tasks/explore"]) {
    await t.step(`GET ${path}?limit=1&cursor= answers 200 with the first page`, async () => {
      const first = await get(svc, `${path}?limit=1`, bearer(me.token));
      const empty = await get(svc, `${path}?limit=1&cursor=`, bearer(me.token));
      assert.equal(empty.res.status, 200, JSON.stringify(empty.body));
      assert.deepEqual(empty.body, first.body);
      assert.equal(empty.body.length, 1);
      assert.ok(empty.res.headers.get("X-Next-Cursor"));
    });
  }
});

Deno.test("GET /v1/users: a cursor made for another caller answers 400 INVALID_CURSOR", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const bob = await signUp(svc);
  await signUp(svc);
  const first = await get(svc, "/v1/users?limit=1", bearer(ada.token));
  const cursor = first.res.headers.get("X-Next-Cursor")!;
  assert.ok(cursor);

  await t.step("another user's cursor is refused", async () => {
    const { res, body } = await get(svc, `/v1/users?limit=1&cursor=${cursor}`, bearer(bob.token));
    assert.equal(res.status, 400);
    assert.equal(body.code, "INVALID_CURSOR");
  });

  await t.step("the same user may follow it with another credential", async () => {
    const key = await createKey(svc, ada.token, { scopes: ["profile:read"] });
    const { res, body } = await get(svc, `/v1/users?limit=1&cursor=${cursor}`, apiKey(key.value));
    assert.equal(res.status, 200);
    assert.equal(body.length, 1);
    assert.notEqual(body[0].id, first.body[0].id);
  });

  await t.step("a cursor of the caller's own project listing is refused", async () => {
    for (const name of ["a", "b"]) {
      const res = await svc.request("/v1/projects", {
        method: "POST",
        headers: bearer(ada.token),
        json: { name },
      });
      await res.body?.cancel();
    }
    const projects = await get(svc, "/v1/projects?limit=1", bearer(ada.token));
    const foreign = projects.res.headers.get("X-Next-Cursor")!;
    const { res, body } = await get(svc, `/v1/users?cursor=${foreign}`, bearer(ada.token));
    assert.equal(res.status, 400);
    assert.equal(body.code, "INVALID_CURSOR");
  });
});
