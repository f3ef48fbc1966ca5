import assert from "node:assert/strict";
import { apiKey, createKey, serveApp, setup, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";

/** Headers that legitimately differ between two requests (the rate budget moves on). */
const PER_REQUEST = /ratelimit|^date$/i;

function comparable(res: Response): Record<string, string> {
  return Object.fromEntries(
    [...res.headers].filter(([name]) => !PER_REQUEST.test(name) && name !== "content-length"),
  );
}

Deno.test("HEAD answers like GET: same status and headers, the GET body's Content-Length, no body", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const { value: key } = await createKey(svc, user.token, {
    scopes: ["tasks:read", "profile:read"],
  });
  await postTask(svc, user.token);
  await postTask(svc, user.token);

  const cases: [what: string, path: string, headers: HeadersInit][] = [
    ["GET /health", "/health", {}],
    ["GET /openapi.json", "/openapi.json", {}],
    ["the gzipped dashboard", "/dashboard", { "Accept-Encoding": "gzip" }],
    ["an API resource", "/v1/users/me", apiKey(key)],
    ["a paged listing with Link", "/api/v1/tasks?limit=1", apiKey(key)],
    ["a 401 problem", "/v1/users/me", {}],
    ["a 404 problem", "/v1/nowhere", {}],
  ];
  for (const [what, path, headers] of cases) {
    await t.step(`HEAD ${path}: ${what}`, async () => {
      const sent = new Headers(headers);
      sent.set("X-Request-Id", "head-vs-get");
      const get = await svc.request(path, { headers: sent });
      const getBytes = (await get.arrayBuffer()).byteLength;
      const head = await svc.request(path, { method: "HEAD", headers: sent });
      assert.equal(head.status, get.status);
      assert.deepEqual(comparable(head), comparable(get));
      assert.equal(head.headers.get("Content-Length"), String(getBytes));
      assert.ok(getBytes > 0);
      assert.equal((await head.arrayBuffer()).byteLength, 0);
    });
  }
});

Deno.test("HEAD over real HTTP announces the GET body's length, not 0", async () => {
  await using served = await serveApp();
  const url = `${served.base}/health`;
  const get = await fetch(url);
  const length = (await get.arrayBuffer()).byteLength;
  const head = await fetch(url, { method: "HEAD" });
  await head.body?.cancel();
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("Content-Length"), String(length));
  assert.notEqual(head.headers.get("Content-Length"), "0");
});

Deno.test("HEAD /tasks/me/created does not read the listing it would stream", async () => {
  const real = await Deno.openKv(":memory:");
  // The service's own store, with the listing reads of one user's tasks counted.
  let listingReads = 0;
  const counted = new Proxy(real, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name !== "list" || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
        if ("prefix" in selector && selector.prefix[0] === "tasks_by_user") listingReads++;
        return target.list(selector, options);
      };
    },
  });
  await using svc = await setup({ kv: counted });
  const user = await signUp(svc);
  for (let i = 0; i < 3; i++) await postTask(svc, user.token);

  listingReads = 0;
  const head = await svc.request("/api/v1/tasks/me/created", {
    method: "HEAD",
    headers: { Authorization: `Bearer ${user.token}` },
  });
  assert.equal(head.status, 200);
  assert.equal(head.body, null);
  assert.equal(listingReads, 0, "HEAD read the listing");
  // Like the GET, which streams it: no length is announced before the stream has been read.
  assert.equal(head.headers.get("Content-Length"), null);

  const get = await svc.request("/api/v1/tasks/me/created", {
    headers: { Authorization: `Bearer ${user.token}` },
  });
  assert.equal((await get.json()).length, 3);
  assert.equal(listingReads, 1);
  assert.equal(get.headers.get("Content-Length"), null);
  real.close();
});
