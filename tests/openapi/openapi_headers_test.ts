/**
 * Every response header the service sends is in the document, on the operation and status that
 * sent it. Only HTTP's own framing, CORS and the pages' security headers are left implicit.
 */
import assert from "node:assert/strict";
import { bearer, setup, signUp, type TestContext } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

const IMPLICIT = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "content-security-policy",
  "cross-origin-opener-policy",
  "referrer-policy",
  "x-content-type-options",
  "x-frame-options",
]);
const implicit = (name: string) => IMPLICIT.has(name) || name.startsWith("access-control-");

/** The headers of `res` its documented response does not list. */
function undocumented(doc: Doc, op: { method: string; path: string }, res: Response): string[] {
  const response = doc.paths[op.path]?.[op.method]?.responses?.[String(res.status)];
  assert.ok(response, `${op.method} ${op.path} documents ${res.status}`);
  const documented = new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()));
  return [...res.headers.keys()].filter((name) => !implicit(name) && !documented.has(name));
}

interface Probe {
  name: string;
  method: string;
  /** The operation's path in the document. */
  path: string;
  send: (svc: TestContext) => Promise<Response>;
}

const get = (url: string, headers: HeadersInit = {}) => (svc: TestContext) =>
  svc.request(url, {
    headers: { "Accept-Encoding": "gzip", Origin: "https://app.test", ...headers },
  });

/** Answers with the ETag of a first GET as If-None-Match: a 304. */
const revalidate = (url: string) => async (svc: TestContext) => {
  const first = await get(url)(svc);
  await first.body?.cancel();
  return get(url, { "If-None-Match": first.headers.get("ETag") ?? "" })(svc);
};

Deno.test("every response header the service sends is documented", async (t) => {
  await using svc = await setup();
  const doc: Doc = await (await svc.request("/openapi.json")).json();
  const user = await signUp(svc);
  const created = await svc.request("/v1/tasks", {
    method: "POST",
    headers: bearer(user.token),
    json: taskBody(),
  });
  const task = await created.json();
  const idempotent = (svc: TestContext) =>
    svc.request("/v1/tasks", {
      method: "POST",
      headers: { ...bearer(user.token), "Idempotency-Key": "probe-1" },
      json: taskBody(),
    });
  await (await idempotent(svc)).body?.cancel();

  const probes: Probe[] = [
    { name: "the dashboard", method: "get", path: "/dashboard", send: get("/dashboard") },
    { name: "its 304", method: "get", path: "/dashboard", send: revalidate("/dashboard") },
    {
      name: "its script",
      method: "get",
      path: "/dashboard/app.js",
      send: get("/dashboard/app.js"),
    },
    {
      name: "its script's 304",
      method: "get",
      path: "/dashboard/app.js",
      send: revalidate("/dashboard/app.js"),
    },
    { name: "the reference page", method: "get", path: "/docs", send: get("/docs") },
    { name: "the document", method: "get", path: "/openapi.json", send: get("/openapi.json") },
    { name: "health", method: "get", path: "/health", send: get("/health") },
    { name: "explore", method: "get", path: "/tasks/explore", send: get("/v1/tasks/explore") },
    {
      name: "explore's 304",
      method: "get",
      path: "/tasks/explore",
      send: revalidate("/v1/tasks/explore"),
    },
    { name: "a task", method: "get", path: "/tasks/{id}", send: get(`/v1/tasks/${task.id}`) },
    {
      name: "a task read with a credential",
      method: "get",
      path: "/tasks/{id}",
      send: get(`/v1/tasks/${task.id}`, bearer(user.token)),
    },
    {
      name: "a page of one's tasks",
      method: "get",
      path: "/tasks",
      send: get("/v1/tasks?limit=1", bearer(user.token)),
    },
    {
      name: "a page by number",
      method: "get",
      path: "/tasks/me/status",
      send: get("/v1/tasks/me/status?limit=1", bearer(user.token)),
    },
    { name: "a replayed create", method: "post", path: "/tasks", send: idempotent },
    {
      name: "a refused create",
      method: "post",
      path: "/tasks",
      send: (svc) =>
        svc.request("/v1/tasks", { method: "POST", headers: bearer(user.token), json: {} }),
    },
    {
      name: "an avatar",
      method: "get",
      path: "/users/{id}/avatar.svg",
      send: get(`/v1/users/${user.id}/avatar.svg`),
    },
  ];
  for (const probe of probes) {
    await t.step(`${probe.name}: ${probe.method.toUpperCase()} ${probe.path}`, async () => {
      const res = await probe.send(svc);
      await res.body?.cancel();
      assert.deepEqual(undocumented(doc, probe, res), [], `status ${res.status}`);
      if (probe.send === idempotent) assert.equal(res.headers.get("Idempotent-Replayed"), "true");
    });
  }
});

Deno.test("a spent budget's 429 headers are documented, on the pages too", async (t) => {
  await using svc = await setup({ settings: { ANON_RATE_LIMIT_PER_HOUR: 1 } });
  const doc: Doc = await (await svc.request("/openapi.json")).json();
  for (const [path, url] of [["/docs", "/docs"], ["/dashboard", "/dashboard"]]) {
    await t.step(path, async () => {
      let res = await get(url)(svc);
      for (let i = 0; i < 3 && res.status !== 429; i++) {
        await res.body?.cancel();
        res = await get(url)(svc);
      }
      await res.body?.cancel();
      assert.equal(res.status, 429);
      assert.ok(res.headers.has("RateLimit"));
      assert.deepEqual(undocumented(doc, { method: "get", path }, res), []);
    });
  }
});
