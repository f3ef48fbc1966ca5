import assert from "node:assert/strict";
import { createLogger } from "../../io/log.ts";
import { apiKey, bearer, createKey, setup, signUp, type TestRequestInit } from "../helpers.ts";

Deno.test("one JSON log line per request, with no secret in it", async (t) => {
  const lines: string[] = [];
  await using svc = await setup({ deps: { log: createLogger("debug", (l) => lines.push(l)) } });
  const password = "very secret password";
  const user = await signUp(svc, { password });
  const key = await createKey(svc, user.token, { scopes: ["profile:read"] });
  lines.length = 0;

  const requests: [string, TestRequestInit, number][] = [
    ["/v1/users/me", { headers: apiKey(key.value) }, 200],
    ["/api/v1/users/me", { headers: bearer(user.token) }, 200],
    ["/api/v1/keys", { headers: bearer(key.value) }, 403],
    ["/v1/users/me", { headers: bearer(`${user.token}x`) }, 401],
    ["/v1/auth/token", { method: "POST", json: { email: user.email, password } }, 200],
    ["/v1/auth/token", { method: "POST", json: { email: user.email, password: "wrong" } }, 401],
    ["/nowhere?token=abc", {}, 404],
    ["/v1/auth/token", { method: "PATCH" }, 405],
    ["/health", {}, 200],
  ];
  const ids: string[] = [];
  for (const [path, init, status] of requests) {
    const res = await svc.request(path, init);
    await res.body?.cancel();
    assert.equal(res.status, status, path);
    ids.push(res.headers.get("X-Request-Id")!);
  }
  const records = lines.map((line) => JSON.parse(line));
  const access = records.filter((r) => r.msg === "request");

  await t.step("exactly one access line per request", () => {
    assert.equal(access.length, requests.length);
  });

  await t.step("each line is one JSON object with method, path, status, duration, id", () => {
    access.forEach((record, i) => {
      const [path, init, status] = requests[i];
      assert.equal(record.method, init.method ?? "GET");
      assert.equal(record.path, path.split("?")[0], "the query string is left out");
      assert.equal(record.status, status);
      assert.equal(typeof record.durationMs, "number");
      assert.ok(record.durationMs >= 0);
      assert.equal(record.requestId, ids[i], "the same id as the X-Request-Id header");
      assert.equal(record.level, "info");
      assert.match(record.time, /^\d{4}-\d\d-\d\dT.*Z$/);
    });
  });

  await t.step("the caller's user id is logged when known", () => {
    assert.equal(access[0].userId, user.id);
    assert.equal(access[1].userId, user.id);
  });

  await t.step("no token, key value or password appears in any line", () => {
    const all = lines.join("\n");
    for (const secret of [user.token, key.value, key.value.slice(4), password, "wrong"]) {
      assert.ok(!all.includes(secret), `a secret is logged: ${secret.slice(0, 12)}…`);
    }
    const [, , signature] = user.token.split(".");
    assert.ok(!all.includes(signature));
  });
});

Deno.test("an unexpected exception is logged with its stack and request id", async () => {
  const lines: string[] = [];
  await using svc = await setup({ deps: { log: createLogger("info", (l) => lines.push(l)) } });
  svc.app.get("/v1/explode", () => {
    throw new TypeError("cannot read internals of undefined");
  });
  const res = await svc.request("/v1/explode");
  assert.equal(res.status, 500);
  assert.equal(res.headers.get("Content-Type"), "application/problem+json; charset=utf-8");
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), [
    "code",
    "detail",
    "requestId",
    "status",
    "title",
    "type",
  ]);
  assert.equal(body.code, "INTERNAL_ERROR");
  assert.doesNotMatch(JSON.stringify(body), /internals|TypeError|at /);
  assert.equal(body.requestId, res.headers.get("X-Request-Id"));

  const records = lines.map((l) => JSON.parse(l));
  const error = records.find((r) => r.level === "error");
  assert.ok(error, "an error line is written");
  assert.equal(error.requestId, body.requestId);
  assert.match(error.stack, /TypeError: cannot read internals of undefined\n\s+at /);
  const access = records.filter((r) => r.msg === "request");
  assert.equal(access.length, 1);
  assert.equal(access[0].status, 500);
});

Deno.test("a thrown non-Error value answers 500 INTERNAL_ERROR without internals and is logged", async (t) => {
  const lines: string[] = [];
  await using svc = await setup({ deps: { log: createLogger("info", (l) => lines.push(l)) } });
  svc.app.get("/v1/throws-string", () => {
    throw "secret string thrown";
  });
  svc.app.get("/v1/rejects-object", () => Promise.reject({ secret: "rejected object internals" }));

  for (
    const [path, internals] of [
      ["/v1/throws-string", /secret string thrown/],
      ["/v1/rejects-object", /rejected object internals/],
    ] as const
  ) {
    await t.step(`GET ${path}`, async () => {
      lines.length = 0;
      const res = await svc.request(path, { headers: { "X-Request-Id": "thrown-1" } });
      assert.equal(res.status, 500);
      assert.equal(res.headers.get("Content-Type"), "application/problem+json; charset=utf-8");
      assert.equal(res.headers.get("X-Request-Id"), "thrown-1");
      const text = await res.text();
      assert.doesNotMatch(text, internals);
      const body = JSON.parse(text);
      assert.equal(body.code, "INTERNAL_ERROR");
      assert.equal(body.requestId, "thrown-1");

      const records = lines.map((l) => JSON.parse(l));
      const error = records.find((r) => r.level === "error");
      assert.ok(error, "an error line is written");
      assert.equal(error.requestId, "thrown-1");
      assert.match(error.error, internals, "the thrown value is in the log");
      assert.deepEqual(records.filter((r) => r.msg === "request").map((r) => r.status), [500]);
    });
  }
});

Deno.test("LOG_LEVEL filters lines below it", () => {
  const lines: string[] = [];
  const log = createLogger("warn", (l) => lines.push(l));
  log.debug("d");
  log.info("i");
  log.warn("w");
  log.error("e");
  assert.deepEqual(lines.map((l) => JSON.parse(l).msg), ["w", "e"]);
  const silent = createLogger("silent", (l) => lines.push(l));
  silent.error("never");
  assert.equal(lines.length, 2);
});
