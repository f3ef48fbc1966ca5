/** Request budgets per API key, per client address and per session account (contract section 10). */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, sharedInstances, signUp } from "../helpers.ts";
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { createApp } from "../../routes/app.ts";
import { defineRoute } from "../../routes/router/define.ts";
import type { AppEnv } from "../../routes/router/env.ts";
import { notFound } from "../../domain/errors.ts";

const RATE_LIMIT_HEADERS = [
  "RateLimit-Policy",
  "RateLimit",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
];
import { admitted, HALF_PAST, HOUR, me, statusOf } from "./rate_limits_helpers.ts";

Deno.test("API-key requests are limited per key, with the headers of docs/contract.md section 10", async (t) => {
  // Sessions have a budget of the same size per account: set up two hours earlier.
  let now = HALF_PAST - 2 * HOUR;
  await using svc = await setup({
    settings: { RATE_LIMIT_PER_HOUR: 3 },
    deps: { now: () => now },
  });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const other = await createKey(svc, user.token);
  now = HALF_PAST;

  await t.step(
    "each allowed response carries RateLimit-Policy, RateLimit and X-RateLimit-*",
    async () => {
      for (const remaining of [2, 1, 0]) {
        const res = await me(svc, key.value);
        await res.body?.cancel();
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("RateLimit-Policy"), '"default";q=3;w=3600');
        // The oldest counted unit is the first of these, admitted on the minute: an hour.
        assert.equal(res.headers.get("RateLimit"), `"default";r=${remaining};t=3600`);
        assert.equal(res.headers.get("X-RateLimit-Limit"), "3");
        assert.equal(res.headers.get("X-RateLimit-Remaining"), String(remaining));
        assert.equal(res.headers.get("X-RateLimit-Reset"), String(now / 1000 + 3600));
      }
    },
  );

  await t.step("over the limit: 429 RATE_LIMITED problem with Retry-After", async () => {
    const res = await me(svc, key.value);
    assert.equal(res.status, 429);
    assert.match(res.headers.get("Content-Type")!, /^application\/problem\+json/);
    const body = await res.json();
    assert.equal(body.code, "RATE_LIMITED");
    assert.equal(body.status, 429);
    assert.equal(body.requestId, res.headers.get("X-Request-Id"));
    // The 3 requests of 12:30 leave the window together at 13:30, an hour from now.
    assert.equal(res.headers.get("Retry-After"), "3600");
    assert.equal(res.headers.get("RateLimit"), '"default";r=0;t=3600');
    assert.equal(res.headers.get("X-RateLimit-Remaining"), "0");
    assert.equal(res.headers.get("X-RateLimit-Reset"), String(now / 1000 + 3600));
  });

  await t.step("another key of the same account has its own budget", async () => {
    const res = await me(svc, other.value);
    assert.equal(await statusOf(res), 200);
    assert.equal(res.headers.get("X-RateLimit-Remaining"), "2");
  });

  await t.step("a refused request does not use budget; Retry-After is exact", async () => {
    now += 3_599_000;
    const refused = await me(svc, key.value);
    assert.equal(await statusOf(refused), 429);
    assert.equal(refused.headers.get("Retry-After"), "1");
    now += 1_000;
    assert.equal(await admitted(() => me(svc, key.value)), 3, "the whole budget is back");
  });

  await t.step("the budget comes before the scope (429, not 403)", async () => {
    const narrow = await createKey(svc, user.token, { scopes: ["tasks:read"] });
    for (let i = 0; i < 3; i++) {
      const res = await me(svc, narrow.value);
      assert.equal(res.status, 403);
      assert.equal((await res.json()).code, "SCOPE_INSUFFICIENT");
      assert.equal(res.headers.get("X-RateLimit-Remaining"), String(2 - i), "403 carries them");
    }
    const res = await me(svc, narrow.value);
    assert.equal(res.status, 429);
    assert.equal((await res.json()).code, "RATE_LIMITED");
  });

  await t.step(
    "a spent budget does not hide a bad address or a revoked key (401 first)",
    async () => {
      const fenced = await createKey(svc, user.token, { ipWhitelist: ["198.51.100.0/24"] });
      assert.equal(await admitted(() => me(svc, fenced.value, "198.51.100.7")), 3);
      const outside = await me(svc, fenced.value, "203.0.113.9");
      assert.equal(outside.status, 401);
      assert.equal((await outside.json()).code, "IP_NOT_ALLOWED");
      const revoke = await svc.request(`/api/v1/keys/${fenced.id}`, {
        method: "DELETE",
        headers: bearer(user.token),
      });
      assert.equal(await statusOf(revoke), 200);
      const revoked = await me(svc, fenced.value, "198.51.100.7");
      assert.equal(revoked.status, 401);
      assert.equal((await revoked.json()).code, "API_KEY_INVALID");
      // A refused credential draws from the address's anonymous budget, never the key's.
      assert.equal(revoked.headers.get("X-RateLimit-Limit"), "1000");
    },
  );
});

Deno.test("anonymous requests are limited per client address", async (t) => {
  await using svc = await setup({
    settings: { ANON_RATE_LIMIT_PER_HOUR: 2 },
    deps: { now: () => HALF_PAST },
  });
  const explore = (ip: string, headers: HeadersInit = {}) =>
    svc.request("/api/v1/tasks/explore", { ip, headers });

  await t.step("an address gets ANON_RATE_LIMIT_PER_HOUR, then 429 with Retry-After", async () => {
    const first = await explore("192.0.2.1");
    assert.equal(await statusOf(first), 200);
    assert.equal(first.headers.get("RateLimit-Policy"), '"default";q=2;w=3600');
    assert.equal(first.headers.get("X-RateLimit-Remaining"), "1");
    assert.equal(await statusOf(await explore("192.0.2.1")), 200);
    const refused = await explore("192.0.2.1");
    assert.equal(refused.status, 429);
    assert.equal((await refused.json()).code, "RATE_LIMITED");
    assert.ok(Number(refused.headers.get("Retry-After")) > 0);
  });

  await t.step("another address has its own budget", async () => {
    assert.equal(await statusOf(await explore("192.0.2.2")), 200);
  });

  await t.step("IPv6 addresses of one /64 share a budget", async () => {
    assert.equal(await statusOf(await explore("2001:db8:1:2::1")), 200);
    assert.equal(await statusOf(await explore("2001:db8:1:2::ffff")), 200);
    assert.equal(await statusOf(await explore("2001:db8:1:2:abcd::9")), 429);
    assert.equal(await statusOf(await explore("2001:db8:1:3::1")), 200);
  });

  await t.step("sign-up and login draw from the same budget", async () => {
    const res = await svc.request("/v1/users", {
      method: "POST",
      ip: "192.0.2.1",
      json: { email: "late@example.com", password: "correct horse battery", firstName: "L" },
    });
    assert.equal(res.status, 429);
    await res.body?.cancel();
  });

  await t.step(
    "a caller with a credential draws from its key's budget, not the address's",
    async () => {
      const user = await signUp(svc, { email: "anon-test@example.com" });
      const key = await createKey(svc, user.token);
      const res = await explore("192.0.2.1", apiKey(key.value));
      assert.equal(await statusOf(res), 200);
      assert.equal(res.headers.get("RateLimit-Policy"), '"default";q=1000;w=3600');
    },
  );
});

Deno.test("session requests draw from a per-account budget of RATE_LIMIT_PER_HOUR", async () => {
  await using svc = await setup({
    settings: { RATE_LIMIT_PER_HOUR: 4, ANON_RATE_LIMIT_PER_HOUR: 100 },
    deps: { now: () => HALF_PAST },
  });
  const user = await signUp(svc);
  const keys = () => svc.request("/api/v1/keys", { headers: bearer(user.token) });
  assert.equal(await admitted(keys), 4);
  const login = await svc.request("/v1/auth/token", {
    method: "POST",
    json: { email: user.email, password: user.password },
  });
  const { token } = await login.json();
  assert.equal(await statusOf(await keys()), 429);
  const again = await svc.request("/api/v1/keys", { headers: bearer(token) });
  assert.equal(await statusOf(again), 429, "a second session of the account shares it");
});

/** A route that builds its answer, then waits until its request is counted, then answers. */
const registerEarly = (api: OpenAPIHono<AppEnv>) => {
  api.openapi(
    defineRoute("public", {
      method: "get",
      path: "/early/{outcome}",
      request: { params: z.object({ outcome: z.enum(["ok", "missing"]) }) },
      responses: { 200: { description: "built before the request was counted" } },
    }),
    async (c) => {
      const answer = c.json({ built: true }, 200);
      await c.get("admitted");
      if (c.req.valid("param").outcome === "missing") throw notFound("Early thing");
      return answer;
    },
  );
};

Deno.test("an answer built before its request is counted still carries the rate-limit headers", async (t) => {
  // The first request of a key, or of an address, on an instance runs its handler while the
  // grant reads and commits: the grant can settle after the answer is built and before it leaves.
  await using shared = await sharedInstances(2);
  const [writer, reader] = shared.list;
  const app = createApp(reader.deps, { routes: [registerEarly] });
  const call = (url: string, headers: HeadersInit, ip: string) =>
    app.request(url, { headers }, { remoteAddr: { hostname: ip, port: 40000, transport: "tcp" } });
  const user = await signUp(writer);
  const expectHeaders = (res: Response, what: string) => {
    for (const name of RATE_LIMIT_HEADERS) {
      assert.ok(res.headers.has(name), `${what}: ${name} missing`);
    }
  };

  await t.step("an address's first request on an instance", async () => {
    const res = await call("/v1/early/ok", {}, "198.51.100.77");
    assert.equal(await statusOf(res), 200);
    expectHeaders(res, "anonymous");
  });

  await t.step("a key's first request on an instance", async () => {
    const key = await createKey(writer, user.token);
    const res = await call("/v1/early/ok", apiKey(key.value), "198.51.100.78");
    assert.equal(await statusOf(res), 200);
    expectHeaders(res, "with a key");
  });

  await t.step("a key's first request that fails after it was built", async () => {
    const key = await createKey(writer, user.token);
    const res = await call("/v1/early/missing", apiKey(key.value), "198.51.100.79");
    assert.equal(await statusOf(res), 404);
    expectHeaders(res, "a 404 with a key");
  });
});
