/**
 * Shared caches may keep anonymous explore pages and published task reads for a few seconds
 * (docs/caching.md): `Cache-Control: public, max-age=0, s-maxage=N`, an ETag answered 304, and a
 * Vary that keeps them from requests with a credential, whose answers are never stored.
 */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";

const SHARED = "public, max-age=0, s-maxage=5";
const vary = (res: Response) => (res.headers.get("Vary") ?? "").split(",").map((v) => v.trim());

async function published(svc: TestContext) {
  const owner = await signUp(svc);
  const task = await postTask(svc, owner.token);
  return { owner, id: task.id as string, path: `/api/v1/tasks/${task.id}` };
}

async function read(res: Response) {
  const text = await res.text();
  return { status: res.status, text, headers: res.headers };
}

Deno.test("an anonymous read of a published task may be kept by shared caches, with an ETag", async () => {
  await using svc = await setup();
  const { path } = await published(svc);
  const res = await svc.request(path);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("Cache-Control"), SHARED);
  assert.match(res.headers.get("ETag") ?? "", /^"[0-9a-f]{32}"$/);
  for (const header of ["Authorization", "X-API-Key"]) assert.ok(vary(res).includes(header));
  assert.equal((await res.json()).title, "Fix the kitchen sink");
});

Deno.test("If-None-Match naming the current ETag answers 304 without a body; another tag, 200", async () => {
  await using svc = await setup();
  const { path } = await published(svc);
  const first = await svc.request(path);
  await first.body?.cancel();
  const etag = first.headers.get("ETag")!;
  for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
    const again = await read(await svc.request(path, { headers: { "If-None-Match": tag } }));
    assert.equal(again.status, 304, tag);
    assert.equal(again.text, "");
    assert.equal(again.headers.get("ETag"), etag);
    assert.equal(again.headers.get("Cache-Control"), SHARED);
  }
  const head = await svc.request(path, { method: "HEAD", headers: { "If-None-Match": etag } });
  assert.equal(head.status, 304);
  const other = await read(await svc.request(path, { headers: { "If-None-Match": '"stale"' } }));
  assert.equal(other.status, 200);
  assert.equal(other.headers.get("ETag"), etag);
});

Deno.test("a changed task has a new ETag: the old one no longer answers 304", async () => {
  await using svc = await setup();
  const { owner, path } = await published(svc);
  const before = await svc.request(path);
  await before.body?.cancel();
  const patched = await svc.request(path, {
    method: "PATCH",
    headers: bearer(owner.token),
    json: { budget: 99 },
  });
  await patched.body?.cancel();
  const after = await read(
    await svc.request(path, { headers: { "If-None-Match": before.headers.get("ETag")! } }),
  );
  assert.equal(after.status, 200);
  assert.notEqual(after.headers.get("ETag"), before.headers.get("ETag"));
  assert.equal(JSON.parse(after.text).budget, 99);
});

Deno.test("answers to a request with a credential stay no-store, carry no ETag and never 304", async () => {
  await using svc = await setup();
  const { owner, path } = await published(svc);
  const anonymous = await svc.request(path);
  await anonymous.body?.cancel();
  const etag = anonymous.headers.get("ETag")!;
  const key = await createKey(svc, owner.token);
  const credentials: [string, HeadersInit][] = [
    ["API key", apiKey(key.value)],
    ["session", bearer(owner.token)],
  ];
  for (const [what, headers] of credentials) {
    for (const target of [path, "/api/v1/tasks/explore", "/api/v1/tasks"]) {
      const res = await svc.request(target, { headers: { ...headers, "If-None-Match": etag } });
      await res.body?.cancel();
      assert.equal(res.status, 200, `${what} ${target}`);
      assert.equal(res.headers.get("Cache-Control"), "no-store", `${what} ${target}`);
      assert.equal(res.headers.get("ETag"), null, `${what} ${target}`);
      if (target !== "/api/v1/tasks") {
        assert.ok(vary(res).includes("Authorization"), `${what} ${target}`);
      }
    }
  }
});

Deno.test("anonymous explore pages are shared, their JSON and GeoJSON forms told apart", async () => {
  await using svc = await setup();
  await published(svc);
  const path = "/api/v1/tasks/explore?latitude=48.85&longitude=2.35&radiusKm=20";
  const json = await svc.request(path);
  const geo = await svc.request(path, { headers: { Accept: "application/geo+json" } });
  assert.equal((await json.json()).length, 1);
  assert.equal((await geo.json()).type, "FeatureCollection");
  for (const res of [json, geo]) {
    assert.equal(res.headers.get("Cache-Control"), SHARED);
    for (const header of ["Accept", "Authorization", "X-API-Key"]) {
      assert.ok(vary(res).includes(header), header);
    }
  }
  assert.notEqual(json.headers.get("ETag"), geo.headers.get("ETag"));
  const again = await svc.request(path, {
    headers: { "If-None-Match": json.headers.get("ETag")! },
  });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
});

Deno.test("a page's ETag covers its next-page cursor as well as its items", async () => {
  await using svc = await setup();
  const older = await published(svc);
  await postTask(svc, older.owner.token, { title: "The newer task" });
  const page = await svc.request("/api/v1/tasks/explore?limit=1");
  assert.equal((await page.json())[0].title, "The newer task");
  assert.ok(page.headers.get("X-Next-Cursor"));
  const deleted = await svc.request(older.path, {
    method: "DELETE",
    headers: bearer(older.owner.token),
  });
  await deleted.body?.cancel();
  const last = await svc.request("/api/v1/tasks/explore?limit=1", {
    headers: { "If-None-Match": page.headers.get("ETag")! },
  });
  assert.equal(last.status, 200, "the same item, but no page follows it any more");
  assert.equal((await last.json())[0].title, "The newer task");
  assert.equal(last.headers.get("X-Next-Cursor"), null);
});

Deno.test("PUBLIC_CACHE_SECONDS sets s-maxage; 0 leaves only revalidation", async () => {
  for (const [seconds, expected] of [[30, "public, max-age=0, s-maxage=30"], [0, "no-cache"]]) {
    await using svc = await setup({ settings: { PUBLIC_CACHE_SECONDS: seconds as number } });
    const { path } = await published(svc);
    for (const target of [path, "/api/v1/tasks/explore"]) {
      const res = await svc.request(target);
      await res.body?.cancel();
      assert.equal(res.headers.get("Cache-Control"), expected, `${seconds} ${target}`);
      assert.ok(res.headers.get("ETag"));
    }
  }
});

Deno.test("nothing but a found, published task is shared: a 404 carries no shared-cache headers", async () => {
  await using svc = await setup();
  const { owner, path } = await published(svc);
  const completed = await svc.request(path, {
    method: "PATCH",
    headers: bearer(owner.token),
    json: { status: "completed" },
  });
  await completed.body?.cancel();
  const gone = await svc.request(path);
  await gone.body?.cancel();
  assert.equal(gone.status, 404);
  assert.notEqual(gone.headers.get("Cache-Control"), SHARED);
  assert.equal(gone.headers.get("ETag"), null);
});

Deno.test("a 429 is the caller's own: never shared, even when it replaces a page already built", async () => {
  // Requests run ahead of their budget's grant (docs/rate-limits.md): a burst over the budget is
  // refused after its pages were built, and the page's shared headers must not go with the 429.
  await using svc = await setup({ settings: { ANON_RATE_LIMIT_PER_HOUR: 3 } });
  const answers = await Promise.all(
    Array.from({ length: 12 }, () => svc.request("/api/v1/tasks/explore").then(read)),
  );
  const refused = answers.filter((a) => a.status === 429);
  assert.equal(answers.length - refused.length, 3);
  for (const { headers } of refused) {
    assert.equal(headers.get("Cache-Control"), "no-store");
    assert.equal(headers.get("ETag"), null);
    assert.ok(headers.get("Retry-After"));
  }
  for (const { status, headers } of answers.filter((a) => a.status !== 429)) {
    assert.equal(status, 200);
    assert.equal(headers.get("Cache-Control"), SHARED);
  }
});
