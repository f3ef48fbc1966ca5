import assert from "node:assert/strict";
import { testSettings } from "../settings_fixtures.ts";
import { createApp } from "../../routes/app.ts";
import { createDeps } from "../../routes/router/deps.ts";

/** Serves a fresh app over real HTTP on 127.0.0.1 at a free port, with KV in a file. */
async function serve() {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  const deps = await createDeps(kv, testSettings({ KV_PATH: `${dir}/kv.sqlite3` }));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    createApp(deps).fetch,
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    base,
    deps,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await deps.lastUsed.flush();
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function call(url: string, init: RequestInit & { json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set("Content-Type", "application/json");
  const res = await fetch(url, {
    ...init,
    headers,
    body: init.json === undefined ? init.body : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { res, body: text ? JSON.parse(text) : null };
}

Deno.test("over real HTTP: sign up, log in, create a key, call the API with it", async (t) => {
  await using srv = await serve();
  const email = "ada@example.com";
  const password = "correct horse battery";
  let token = "";
  let key = "";

  await t.step("POST /v1/users answers 201", async () => {
    const { res, body } = await call(`${srv.base}/v1/users`, {
      method: "POST",
      json: { email, password, firstName: "Ada" },
    });
    assert.equal(res.status, 201);
    assert.equal(body.email, email);
    assert.match(res.headers.get("X-Request-Id")!, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(res.headers.get("Content-Type"), "application/json; charset=utf-8");
  });

  await t.step("POST /v1/auth/token answers a token", async () => {
    const { res, body } = await call(`${srv.base}/v1/auth/token`, {
      method: "POST",
      json: { email, password },
    });
    assert.equal(res.status, 200);
    token = body.token;
  });

  await t.step("POST /api/v1/keys answers the key once", async () => {
    const { res, body } = await call(`${srv.base}/api/v1/keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      json: {
        name: "laptop",
        scopes: ["profile:read"],
        expiresInDays: 30,
        ipWhitelist: ["127.0.0.1"],
      },
    });
    assert.equal(res.status, 201);
    key = body.key;
    assert.match(key, /^svc_[0-9a-f]{64}$/);
  });

  await t.step("GET /v1/users/me with the key, from the whitelisted TCP peer", async () => {
    const forms: Record<string, string>[] = [{ "X-API-Key": key }, {
      Authorization: `Bearer ${key}`,
    }];
    for (const headers of forms) {
      const { res, body } = await call(`${srv.base}/v1/users/me`, {
        headers: { ...headers, "X-Request-Id": "trace-42" },
      });
      assert.equal(res.status, 200);
      assert.equal(body.email, email);
      assert.equal(res.headers.get("X-Request-Id"), "trace-42");
    }
  });

  await t.step("a whitelist without the peer's address refuses it", async () => {
    await call(`${srv.base}/api/v1/keys`, { headers: { Authorization: `Bearer ${token}` } })
      .then(async ({ body }) => {
        const { res } = await call(`${srv.base}/api/v1/keys/${body[0].id}`, {
          method: "PATCH",
          headers: { Authorization: `Bearer ${token}` },
          json: { ipWhitelist: ["10.0.0.0/8"] },
        });
        assert.equal(res.status, 200);
      });
    const { res, body } = await call(`${srv.base}/v1/users/me`, { headers: { "X-API-Key": key } });
    assert.equal(res.status, 401);
    assert.equal(body.code, "IP_NOT_ALLOWED");
    assert.match(body.detail, /127\.0\.0\.1/);
  });

  await t.step("errors over HTTP are problem+json with the request id", async () => {
    const { res, body } = await call(`${srv.base}/v1/nothing`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("Content-Type"), "application/problem+json; charset=utf-8");
    assert.equal(body.requestId, res.headers.get("X-Request-Id"));
  });

  await t.step("a streamed body over 64 KiB without Content-Length answers 413", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 5) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const { res, body } = await call(`${srv.base}/v1/users`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: stream,
    });
    assert.equal(res.status, 413);
    assert.equal(body.code, "PAYLOAD_TOO_LARGE");
  });

  await t.step(
    "12 key creations at once over HTTP on a KV file: 10 succeed, 2 get 409",
    async () => {
      const login = await call(`${srv.base}/v1/users`, {
        method: "POST",
        json: { email: "race@example.com", password, firstName: "R" },
      });
      assert.equal(login.res.status, 201);
      const session = (await call(`${srv.base}/v1/auth/token`, {
        method: "POST",
        json: { email: "race@example.com", password },
      })).body.token;
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(`${srv.base}/api/v1/keys`, {
            method: "POST",
            headers: { Authorization: `Bearer ${session}` },
            json: { name: `k${i}`, scopes: ["tasks:read"], expiresInDays: 1 },
          })),
      );
      const statuses = results.map((r) => r.res.status).sort();
      assert.deepEqual(statuses, [...Array(10).fill(201), 409, 409]);
      for (const r of results.filter((r) => r.res.status === 409)) {
        assert.equal(r.body.code, "KEY_LIMIT_REACHED");
      }
    },
  );
});
