import assert from "node:assert/strict";
import { bearer, setup, signUp } from "../helpers.ts";

const KIB = 1024;

Deno.test("every route is served under both /api/v1 and /v1", async () => {
  await using svc = await setup();
  const routes = svc.app.routes.filter((r) => r.method !== "ALL");
  const under = (prefix: string) =>
    new Set(
      routes.filter((r) => r.path.startsWith(`${prefix}/`))
        .map((r) => `${r.method} ${r.path.slice(prefix.length)}`),
    );
  const api = under("/api/v1");
  const short = under("/v1");
  assert.ok(api.size > 0);
  assert.deepEqual([...api].sort(), [...short].sort());
  for (const r of routes) {
    assert.ok(
      r.path.startsWith("/api/v1/") || r.path.startsWith("/v1/") || !r.path.includes("/v1"),
      `${r.method} ${r.path} is outside the two prefixes`,
    );
  }
});

Deno.test("unknown routes and wrong methods", async (t) => {
  await using svc = await setup();

  await t.step("a trailing slash is another path: 404, not 405", async () => {
    const res = await svc.request("/v1/users/me/");
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "NOT_FOUND");
  });

  await t.step("paths are case-sensitive: /V1/users/me is 404", async () => {
    const res = await svc.request("/V1/users/me");
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });

  await t.step("405 carries Allow with exactly the path's methods", async () => {
    const res = await svc.request("/api/v1/keys", { method: "PUT" });
    assert.equal(res.status, 405);
    const body = await res.json();
    assert.equal(body.code, "METHOD_NOT_ALLOWED");
    assert.equal(body.requestId, res.headers.get("X-Request-Id"));
    const allow = res.headers.get("Allow")!.split(", ").sort();
    assert.deepEqual(allow, ["GET", "HEAD", "POST"]);
  });

  await t.step("405 for a parameterized path", async () => {
    const res = await svc.request(`/v1/keys/${crypto.randomUUID()}/regenerate`, { method: "GET" });
    assert.equal(res.status, 405);
    assert.deepEqual(res.headers.get("Allow"), "POST");
    await res.body?.cancel();
  });

  await t.step("POST /health is 405 with Allow: GET, HEAD", async () => {
    const res = await svc.request("/health", { method: "POST" });
    assert.equal(res.status, 405);
    assert.deepEqual(res.headers.get("Allow")!.split(", ").sort(), ["GET", "HEAD"]);
    await res.body?.cancel();
  });

  await t.step("HEAD of a GET route answers like GET, without a body", async () => {
    const res = await svc.request("/health", { method: "HEAD" });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "");
    assert.ok(res.headers.get("X-Request-Id"));
  });

  // The root itself is the landing page (tests/landing_test.ts).
  await t.step("a bare prefix is 404", async () => {
    for (const path of ["/v1", "/api/v1", "/api"]) {
      const res = await svc.request(path);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
  });
});

Deno.test("request bodies: size, media type and JSON", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  // Padded with JSON whitespace: a padding member would be refused as an unknown parameter.
  const keyBody = (padding: number) =>
    JSON.stringify({ name: "k", scopes: ["tasks:read"], expiresInDays: 1 }) + " ".repeat(padding);
  const post = (body: BodyInit | undefined, contentType?: string, token = user.token) => {
    const headers: Record<string, string> = { ...bearer(token) as Record<string, string> };
    if (contentType) headers["Content-Type"] = contentType;
    return svc.request("/api/v1/keys", { method: "POST", headers, body });
  };
  const overhead = keyBody(0).length;

  await t.step("a body of exactly 64 KiB is accepted", async () => {
    const res = await post(keyBody(64 * KIB - overhead), "application/json");
    assert.equal(res.status, 201);
    await res.body?.cancel();
  });

  await t.step("one byte more answers 413 PAYLOAD_TOO_LARGE", async () => {
    const res = await post(keyBody(64 * KIB - overhead + 1), "application/json");
    assert.equal(res.status, 413);
    const body = await res.json();
    assert.equal(body.code, "PAYLOAD_TOO_LARGE");
    assert.equal(body.requestId, res.headers.get("X-Request-Id"));
  });

  await t.step("413 comes before authentication", async () => {
    const res = await svc.request("/api/v1/keys", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: keyBody(70 * KIB),
    });
    assert.equal(res.status, 413);
    await res.body?.cancel();
  });

  for (const type of ["application/json; charset=utf-8", "application/json;charset=UTF-8"]) {
    await t.step(`Content-Type ${type} is JSON`, async () => {
      const res = await post(keyBody(0), type);
      assert.equal(res.status, 201);
      await res.body?.cancel();
    });
  }

  for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) {
    await t.step(`Content-Type ${type} answers 415 UNSUPPORTED_MEDIA_TYPE`, async () => {
      const res = await post(keyBody(0), type);
      assert.equal(res.status, 415);
      assert.equal((await res.json()).code, "UNSUPPORTED_MEDIA_TYPE");
    });
  }

  await t.step("a body without Content-Type answers 415", async () => {
    const res = await post(new TextEncoder().encode(keyBody(0)));
    assert.equal(res.status, 415);
    assert.equal((await res.json()).code, "UNSUPPORTED_MEDIA_TYPE");
  });

  for (const text of ["{not json", "", '{"name": "k",}', "\u00ff\u00fe"]) {
    await t.step(`JSON ${JSON.stringify(text)} answers 400 INVALID_JSON`, async () => {
      const res = await post(text, "application/json");
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.code, "INVALID_JSON");
      assert.equal(body.type, "about:blank");
      assert.equal(body.title, "Bad Request");
    });
  }

  for (const text of ["[]", "null", "42", '"text"']) {
    await t.step(
      `valid JSON that is not an object (${text}) answers VALIDATION_ERROR`,
      async () => {
        const res = await post(text, "application/json");
        assert.equal(res.status, 400);
        const body = await res.json();
        assert.equal(body.code, "VALIDATION_ERROR");
        assert.ok(Array.isArray(body.errors) && body.errors.length > 0);
      },
    );
  }

  await t.step("no body at all answers VALIDATION_ERROR listing the missing members", async () => {
    const res = await post(undefined);
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.code, "VALIDATION_ERROR");
    const paths = body.errors.map((e: { path: string }) => e.path);
    assert.ok(paths.includes("name") && paths.includes("scopes"), paths.join(","));
  });
});

Deno.test("X-Request-Id is on every response, the client's own when sane", async (t) => {
  await using svc = await setup();

  for (
    const [what, path, init] of [
      ["200", "/health", {}],
      ["401", "/v1/users/me", {}],
      ["404", "/nowhere", {}],
      ["405", "/health", { method: "DELETE" }],
      ["413", "/v1/users", { method: "POST", body: "x".repeat(65 * KIB) }],
    ] as const
  ) {
    await t.step(`on a ${what}: echoed, and equal to the body's requestId`, async () => {
      const res = await svc.request(path, { ...init, headers: { "X-Request-Id": `req-${what}` } });
      assert.equal(res.headers.get("X-Request-Id"), `req-${what}`);
      const text = await res.text();
      if (res.status >= 400) assert.equal(JSON.parse(text).requestId, `req-${what}`);
    });
  }

  await t.step("an id over 128 characters is replaced", async () => {
    const res = await svc.request("/health", { headers: { "X-Request-Id": "a".repeat(129) } });
    await res.body?.cancel();
    assert.match(res.headers.get("X-Request-Id")!, /^[0-9A-Z]{26}$/);
  });

  await t.step("minted ids are distinct and increase", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await svc.request("/health");
      await res.body?.cancel();
      ids.push(res.headers.get("X-Request-Id")!);
    }
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
  });
});
