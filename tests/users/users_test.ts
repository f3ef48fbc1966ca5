import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "../helpers.ts";

async function json(res: Response) {
  return res.status === 204 ? null : await res.json();
}

/** Follows X-Next-Cursor to the end, returning every page's ids. */
async function pageThrough(svc: TestContext, path: string, headers: HeadersInit) {
  const pages: string[][] = [];
  let url: string | null = path;
  while (url) {
    const res: Response = await svc.request(url, { headers });
    assert.equal(res.status, 200, await res.clone().text());
    pages.push((await res.json()).map((u: { id: string }) => u.id));
    const next = res.headers.get("X-Next-Cursor");
    url = next
      ? `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(next)}`
      : null;
  }
  return pages;
}

Deno.test("GET /v1/users lists public profiles, cursor-paged newest first", async (t) => {
  // A clock that ticks on every read, so items made back to back differ in createdAt.
  let tick = Date.now();
  await using svc = await setup({ deps: { now: () => ++tick } });
  const users: Awaited<ReturnType<typeof signUp>>[] = [];
  for (let i = 0; i < 5; i++) users.push(await signUp(svc, { firstName: `U${i}` }));
  const me = users[4];

  await t.step("items are public profiles (no email, no updatedAt), newest first", async () => {
    const res = await svc.request("/v1/users", { headers: bearer(me.token) });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(body.map((u: { id: string }) => u.id), users.map((u) => u.id).reverse());
    assert.deepEqual(Object.keys(body[0]).sort(), [
      "createdAt",
      "firstName",
      "id",
      "lastName",
      "profilePic",
    ]);
    assert.equal(res.headers.get("X-Next-Cursor"), null, "the last page has no cursor");
    assert.equal(res.headers.get("Link"), null, "the last page has no Link");
  });

  await t.step("limit=2 pages through every user once with X-Next-Cursor", async () => {
    const pages = await pageThrough(svc, "/v1/users?limit=2", bearer(me.token));
    assert.deepEqual(pages.map((p) => p.length), [2, 2, 1]);
    assert.deepEqual(pages.flat(), users.map((u) => u.id).reverse());
  });

  await t.step('a page with more after it carries Link: <absolute URL>; rel="next"', async () => {
    // From this machine, so Link URLs are absolute (docs/security.md, "Links").
    const res = await svc.request("/api/v1/users?limit=2", {
      headers: bearer(me.token),
      ip: "127.0.0.1",
    });
    await res.body?.cancel();
    const cursor = res.headers.get("X-Next-Cursor")!;
    const link = res.headers.get("Link")!;
    const match = /^<([^>]+)>; rel="next"$/.exec(link);
    assert.ok(match, link);
    const next = new URL(match[1]);
    assert.equal(next.pathname, "/api/v1/users");
    assert.equal(next.searchParams.get("cursor"), cursor);
    assert.equal(next.searchParams.get("limit"), "2");
  });

  await t.step("paging returns every user once while others sign up meanwhile", async () => {
    const first = await svc.request("/v1/users?limit=2", { headers: bearer(me.token) });
    const seen: string[] = (await first.json()).map((u: { id: string }) => u.id);
    const late = await signUp(svc, { firstName: "Late" });
    let cursor = first.headers.get("X-Next-Cursor");
    while (cursor) {
      const res = await svc.request(`/v1/users?limit=2&cursor=${cursor}`, {
        headers: bearer(me.token),
      });
      seen.push(...(await res.json()).map((u: { id: string }) => u.id));
      cursor = res.headers.get("X-Next-Cursor");
    }
    assert.deepEqual(seen, users.map((u) => u.id).reverse());
    assert.ok(!seen.includes(late.id), "a newer user belongs to the first page, not a later one");
  });

  await t.step("a malformed cursor answers 400 INVALID_CURSOR", async () => {
    // not base64url JSON; JSON without a position; far too long
    for (const cursor of ["garbage!", "eyJwIjoxfQ", "x".repeat(600)]) {
      const res = await svc.request(`/v1/users?cursor=${cursor}`, { headers: bearer(me.token) });
      assert.equal(res.status, 400, cursor);
      assert.equal((await res.json()).code, "INVALID_CURSOR", cursor);
    }
  });

  await t.step("a cursor made for another query answers 400 INVALID_CURSOR", async () => {
    const key = await createKey(svc, me.token, { scopes: ["projects:read", "projects:write"] });
    for (let i = 0; i < 3; i++) {
      const res = await svc.request("/v1/projects", {
        method: "POST",
        headers: apiKey(key.value),
        json: { name: `P${i}` },
      });
      await res.body?.cancel();
    }
    const projects = await svc.request("/v1/projects?limit=1", { headers: apiKey(key.value) });
    await projects.body?.cancel();
    const cursor = projects.headers.get("X-Next-Cursor")!;
    const res = await svc.request(`/v1/users?cursor=${cursor}`, { headers: bearer(me.token) });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, "INVALID_CURSOR");
  });

  await t.step("limit outside 1..50 or not an integer answers 400 VALIDATION_ERROR", async () => {
    for (const limit of ["0", "51", "abc", "2.5", "-1"]) {
      const res = await svc.request(`/v1/users?limit=${limit}`, { headers: bearer(me.token) });
      assert.equal(res.status, 400, limit);
      const body = await res.json();
      assert.equal(body.code, "VALIDATION_ERROR");
      assert.equal(body.errors[0].path, "limit");
    }
  });

  await t.step("GET /v1/users without a credential answers 401 TOKEN_MISSING", async () => {
    const res = await svc.request("/v1/users");
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "TOKEN_MISSING");
  });

  await t.step("GET /v1/users with a key lacking profile:read answers 403", async () => {
    const key = await createKey(svc, me.token, { scopes: ["tasks:read"] });
    const res = await svc.request("/v1/users", { headers: apiKey(key.value) });
    assert.equal(res.status, 403);
    const body = await res.json();
    assert.equal(body.code, "SCOPE_INSUFFICIENT");
    assert.equal(body.scope, "profile:read");
  });

  await t.step("GET /v1/users with a profile:read key answers 200", async () => {
    const key = await createKey(svc, me.token, { scopes: ["profile:read"] });
    const res = await svc.request("/api/v1/users", {
      headers: { Authorization: `Bearer ${key.value}` },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

Deno.test("GET /v1/users/:id answers the public profile, the private one for oneself", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc, { firstName: "Ada" });
  const bob = await signUp(svc, { firstName: "Bob" });

  await t.step("another user's id gives the public profile", async () => {
    const res = await svc.request(`/v1/users/${bob.id}`, { headers: bearer(ada.token) });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.firstName, "Bob");
    assert.equal(body.email, undefined);
    assert.equal(body.updatedAt, undefined);
  });

  await t.step("one's own id gives the private profile with email and updatedAt", async () => {
    const res = await svc.request(`/v1/users/${ada.id}`, { headers: bearer(ada.token) });
    const body = await res.json();
    assert.equal(body.email, ada.email);
    assert.match(body.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  await t.step("an unknown id answers 404 NOT_FOUND", async () => {
    const res = await svc.request(`/v1/users/${crypto.randomUUID()}`, {
      headers: bearer(ada.token),
    });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "NOT_FOUND");
  });

  await t.step("an id that is not a UUID answers 404 NOT_FOUND", async () => {
    const res = await svc.request("/v1/users/not-a-uuid", { headers: bearer(ada.token) });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "NOT_FOUND");
  });

  await t.step("a key without profile:read answers 403 SCOPE_INSUFFICIENT", async () => {
    const key = await createKey(svc, ada.token, { scopes: ["tasks:read"] });
    const res = await svc.request(`/v1/users/${bob.id}`, { headers: apiKey(key.value) });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).code, "SCOPE_INSUFFICIENT");
  });
});

Deno.test("PUT /v1/users/:id updates one's own profile", async (t) => {
  const start = Date.now();
  let clock = start;
  await using svc = await setup({ deps: { now: () => clock } });
  const ada = await signUp(svc, { firstName: "Ada" });
  const bob = await signUp(svc, { firstName: "Bob" });
  const put = (id: string, json: unknown, headers: HeadersInit = bearer(ada.token)) =>
    svc.request(`/v1/users/${id}`, { method: "PUT", json, headers });

  await t.step("a partial body changes only the members sent", async () => {
    const res = await put(ada.id, { lastName: "Lovelace" });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.firstName, "Ada");
    assert.equal(body.lastName, "Lovelace");
    assert.equal(body.email, ada.email, "the answer is the private profile");
  });

  await t.step("firstName and profilePic change; null clears lastName", async () => {
    const res = await put(ada.id, {
      firstName: "Augusta",
      lastName: null,
      profilePic: "https://img.example.com/ada.png",
    });
    const body = await res.json();
    assert.equal(body.firstName, "Augusta");
    assert.equal(body.lastName, null);
    assert.equal(body.profilePic, "https://img.example.com/ada.png");
    const again = await svc.request(`/v1/users/${ada.id}`, { headers: bearer(bob.token) });
    assert.equal((await again.json()).firstName, "Augusta", "others see the change");
  });

  await t.step("updatedAt moves forward, createdAt stays", async () => {
    const before = await json(await svc.request("/v1/users/me", { headers: bearer(ada.token) }));
    clock += 60_000;
    const after = await json(await put(ada.id, { firstName: "Ada" }));
    assert.equal(after.createdAt, before.createdAt);
    assert.equal(after.updatedAt, new Date(start + 60_000).toISOString());
  });

  await t.step("another user's profile answers 403 FORBIDDEN", async () => {
    const res = await put(bob.id, { firstName: "Mallory" });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).code, "FORBIDDEN");
    const bobNow = await json(await svc.request("/v1/users/me", { headers: bearer(bob.token) }));
    assert.equal(bobNow.firstName, "Bob");
  });

  await t.step("an unknown user answers 404 NOT_FOUND", async () => {
    const res = await put(crypto.randomUUID(), { firstName: "X" });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "NOT_FOUND");
  });

  await t.step("bad members answer 400 VALIDATION_ERROR naming each", async () => {
    const res = await put(ada.id, { firstName: "", profilePic: "http://insecure.example.com/a" });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.deepEqual(body.errors.map((e: { path: string }) => e.path).sort(), [
      "firstName",
      "profilePic",
    ]);
  });

  await t.step("a key with only profile:read answers 403 SCOPE_INSUFFICIENT", async () => {
    const key = await createKey(svc, ada.token, { scopes: ["profile:read"] });
    const res = await put(ada.id, { firstName: "Key" }, apiKey(key.value));
    assert.equal(res.status, 403);
    const body = await res.json();
    assert.equal(body.code, "SCOPE_INSUFFICIENT");
    assert.equal(body.scope, "profile:write");
  });

  await t.step("a key with profile:write updates the profile", async () => {
    const key = await createKey(svc, ada.token, { scopes: ["profile:write"] });
    const res = await put(ada.id, { firstName: "Keyed" }, apiKey(key.value));
    assert.equal(res.status, 200);
    assert.equal((await res.json()).firstName, "Keyed");
  });
});
