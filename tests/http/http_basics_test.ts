import assert from "node:assert/strict";
import { setup } from "../helpers.ts";

Deno.test("every response carries a request id and errors are problem+json", async (t) => {
  await using svc = await setup();

  await t.step("a sane client X-Request-Id is echoed back", async () => {
    const res = await svc.request("/health", { headers: { "X-Request-Id": "abc-123" } });
    await res.body?.cancel();
    assert.equal(res.headers.get("X-Request-Id"), "abc-123");
  });

  await t.step("an insane X-Request-Id is replaced by a ULID", async () => {
    const res = await svc.request("/health", { headers: { "X-Request-Id": "no spaces <here>" } });
    await res.body?.cancel();
    assert.match(res.headers.get("X-Request-Id")!, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  await t.step("GET /health answers 200 {status: ok} while KV answers", async () => {
    const res = await svc.request("/health");
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: "ok" });
  });

  await t.step(
    "an unknown route answers 404 NOT_FOUND with the request id in the body",
    async () => {
      const res = await svc.request("/api/v1/nothing-here");
      assert.equal(res.status, 404);
      assert.equal(res.headers.get("Content-Type"), "application/problem+json; charset=utf-8");
      const body = await res.json();
      assert.equal(body.code, "NOT_FOUND");
      assert.equal(body.status, 404);
      assert.equal(body.type, "about:blank");
      assert.equal(body.requestId, res.headers.get("X-Request-Id"));
    },
  );

  await t.step("a known path with a wrong method answers 405 with Allow", async () => {
    const res = await svc.request("/v1/users/me", { method: "PATCH" });
    assert.equal(res.status, 405);
    assert.equal((await res.json()).code, "METHOD_NOT_ALLOWED");
    assert.match(res.headers.get("Allow")!, /GET/);
  });

  await t.step("a body over 64 KiB answers 413 PAYLOAD_TOO_LARGE", async () => {
    const res = await svc.request("/v1/users", {
      method: "POST",
      json: { email: "big@example.com", password: "x".repeat(70_000), firstName: "B" },
    });
    assert.equal(res.status, 413);
    assert.equal((await res.json()).code, "PAYLOAD_TOO_LARGE");
  });

  await t.step("a body that is not JSON answers 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const res = await svc.request("/v1/users", {
      method: "POST",
      body: "email=a@b.c",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    assert.equal(res.status, 415);
    assert.equal((await res.json()).code, "UNSUPPORTED_MEDIA_TYPE");
  });

  await t.step("unparseable JSON answers 400 INVALID_JSON", async () => {
    const res = await svc.request("/v1/users", {
      method: "POST",
      body: "{not json",
      headers: { "Content-Type": "application/json" },
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, "INVALID_JSON");
  });

  await t.step("every prefix serves the same endpoint", async () => {
    for (const prefix of ["/api/v1", "/v1"]) {
      const res = await svc.request(`${prefix}/users/me`);
      assert.equal(res.status, 401, prefix);
      assert.equal((await res.json()).code, "TOKEN_MISSING");
    }
  });
});

Deno.test("an unexpected exception answers 500 INTERNAL_ERROR without internals", async () => {
  const lines: string[] = [];
  await using svc = await setup({
    deps: {
      log: {
        debug() {},
        info() {},
        warn() {},
        error: (msg, fields) => lines.push(JSON.stringify({ msg, ...fields })),
      },
    },
  });
  svc.app.get("/boom", () => {
    throw new Error("secret database detail");
  });
  const res = await svc.request("/boom");
  assert.equal(res.status, 500);
  const text = await res.text();
  assert.doesNotMatch(text, /secret database detail/);
  assert.equal(JSON.parse(text).code, "INTERNAL_ERROR");
  assert.match(lines.join("\n"), /secret database detail/, "the stack is logged");
});

Deno.test("JSON responses are labelled application/json; charset=utf-8", async (t) => {
  await using svc = await setup();
  await t.step("GET /health says charset=utf-8", async () => {
    const res = await svc.request("/health");
    await res.body?.cancel();
    assert.equal(res.headers.get("Content-Type"), "application/json; charset=utf-8");
  });
  await t.step("POST /v1/users (201) says charset=utf-8", async () => {
    const res = await svc.request("/v1/users", {
      method: "POST",
      json: { email: "charset@example.com", password: "long enough pw", firstName: "C" },
    });
    await res.body?.cancel();
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("Content-Type"), "application/json; charset=utf-8");
  });
});
