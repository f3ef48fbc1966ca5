import assert from "node:assert/strict";
import { sign } from "hono/jwt";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "../helpers.ts";

async function codeOf(res: Response): Promise<[number, string | undefined]> {
  if (res.status < 400) {
    await res.body?.cancel();
    return [res.status, undefined];
  }
  return [res.status, (await res.json()).code];
}

function me(svc: TestContext, headers: HeadersInit, ip?: string) {
  return svc.request("/v1/users/me", { headers, ip });
}

Deno.test("checks run in the order of docs/contract.md section 2, the first failure answering", async (t) => {
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  await using svc = await setup({
    settings: { SESSION_TTL_HOURS: 24 * 30 },
    deps: { now: () => now },
  });
  const user = await signUp(svc);
  // Lacks profile:read, and only works from 198.51.100.0/24.
  const fenced = await createKey(svc, user.token, {
    scopes: ["tasks:read"],
    ipWhitelist: ["198.51.100.0/24"],
  });
  const expiring = await createKey(svc, user.token, {
    scopes: ["tasks:read"],
    ipWhitelist: ["198.51.100.0/24"],
    expiresInDays: 1,
  });
  const inside = "198.51.100.20";
  const outside = "203.0.113.99";

  await t.step("1. no credential where one is needed: 401 TOKEN_MISSING", async () => {
    assert.deepEqual(await codeOf(await me(svc, {})), [401, "TOKEN_MISSING"]);
    const keys = await svc.request("/api/v1/keys");
    assert.deepEqual(await codeOf(keys), [401, "TOKEN_MISSING"]);
  });

  await t.step("TOKEN_MISSING comes before the body is looked at", async () => {
    const res = await svc.request("/api/v1/keys", {
      method: "POST",
      body: "{not json",
      headers: { "Content-Type": "application/json" },
    });
    assert.deepEqual(await codeOf(res), [401, "TOKEN_MISSING"]);
    const form = await svc.request("/api/v1/keys", {
      method: "POST",
      body: "a=b",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    assert.deepEqual(await codeOf(form), [401, "TOKEN_MISSING"]);
  });

  await t.step("an empty X-API-Key header is no credential", async () => {
    assert.deepEqual(await codeOf(await me(svc, { "X-API-Key": "" })), [401, "TOKEN_MISSING"]);
  });

  await t.step(
    "2. an expired key answers API_KEY_INVALID before its whitelist or scope",
    async () => {
      now += 86_400_000;
      assert.deepEqual(
        await codeOf(await me(svc, apiKey(expiring.value), outside)),
        [401, "API_KEY_INVALID"],
      );
      now -= 86_400_000;
    },
  );

  await t.step("2. a session token that is bad answers TOKEN_INVALID", async () => {
    const otherSecret = await sign(
      { sub: user.id, sid: crypto.randomUUID(), exp: Math.floor(now / 1000) + 3600 },
      "another-secret-another-secret-another",
      "HS256",
    );
    const [header, payload] = user.token.split(".");
    const cases: [string, HeadersInit][] = [
      ["garbage", bearer("not-a-jwt")],
      ["a tampered signature", bearer(`${header}.${payload}.AAAA`)],
      ["another secret's signature", bearer(otherSecret)],
      ["alg none", bearer(`${btoa('{"alg":"none","typ":"JWT"}')}.${payload}.`)],
      ["a scheme other than Bearer", { Authorization: `Basic ${btoa("a:b")}` }],
      ["Bearer with nothing after it", { Authorization: "Bearer" }],
      ["two tokens", { Authorization: `Bearer ${user.token} ${user.token}` }],
    ];
    for (const [what, headers] of cases) {
      assert.deepEqual(await codeOf(await me(svc, headers)), [401, "TOKEN_INVALID"], what);
    }
  });

  await t.step("3. outside the whitelist: 401 IP_NOT_ALLOWED, before the scope", async () => {
    assert.deepEqual(
      await codeOf(await me(svc, apiKey(fenced.value), outside)),
      [401, "IP_NOT_ALLOWED"],
    );
  });

  await t.step("3. IP_NOT_ALLOWED also comes before SESSION_REQUIRED", async () => {
    const res = await svc.request("/api/v1/keys", { headers: apiKey(fenced.value), ip: outside });
    assert.deepEqual(await codeOf(res), [401, "IP_NOT_ALLOWED"]);
  });

  await t.step("5. inside the whitelist, lacking the scope: 403 naming it", async () => {
    const res = await me(svc, apiKey(fenced.value), inside);
    assert.equal(res.status, 403);
    const body = await res.json();
    assert.equal(body.code, "SCOPE_INSUFFICIENT");
    assert.equal(body.scope, "profile:read");
    assert.match(body.detail, /profile:read/);
  });

  await t.step("6. an API key where a session is required: 403 SESSION_REQUIRED", async () => {
    const res = await svc.request("/api/v1/keys", { headers: apiKey(fenced.value), ip: inside });
    assert.deepEqual(await codeOf(res), [403, "SESSION_REQUIRED"]);
  });

  await t.step("a session holds every scope", async () => {
    assert.deepEqual(await codeOf(await me(svc, bearer(user.token))), [200, undefined]);
  });
});

Deno.test("both header forms carry a key on every path of both prefixes", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { scopes: ["profile:read"] });
  const forms: [string, HeadersInit][] = [
    ["X-API-Key", { "X-API-Key": key.value }],
    ["x-api-key (any case)", { "x-api-key": key.value }],
    ["Authorization: Bearer", { Authorization: `Bearer ${key.value}` }],
    ["Authorization: bearer (any case)", { Authorization: `bearer ${key.value}` }],
  ];
  for (const [what, headers] of forms) {
    for (const prefix of ["/api/v1", "/v1"]) {
      await t.step(`${what} on ${prefix}/users/me`, async () => {
        const res = await svc.request(`${prefix}/users/me`, { headers });
        assert.equal(res.status, 200);
        assert.equal((await res.json()).id, user.id);
      });
    }
  }

  await t.step("when both headers are sent, X-API-Key is the credential", async () => {
    const res = await me(svc, { "X-API-Key": key.value, Authorization: "Bearer junk" });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const bad = await me(svc, { "X-API-Key": "svc_bad", Authorization: `Bearer ${user.token}` });
    assert.deepEqual(await codeOf(bad), [401, "API_KEY_INVALID"]);
  });
});

Deno.test("a credential sent to a public endpoint is still checked", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, {
    scopes: ["tasks:read"],
    ipWhitelist: ["198.51.100.0/24"],
  });
  const signUpBody = () => ({
    email: `${crypto.randomUUID()}@example.com`,
    password: "12345678",
    firstName: "P",
  });
  const login = { email: user.email, password: user.password };

  await t.step("no credential: the public endpoint answers", async () => {
    const res = await svc.request("/v1/users", { method: "POST", json: signUpBody() });
    assert.deepEqual(await codeOf(res), [201, undefined]);
  });

  await t.step("a bad API key: 401 API_KEY_INVALID", async () => {
    const res = await svc.request("/v1/users", {
      method: "POST",
      json: signUpBody(),
      headers: apiKey(`svc_${"0".repeat(64)}`),
    });
    assert.deepEqual(await codeOf(res), [401, "API_KEY_INVALID"]);
  });

  await t.step("a bad session token: 401 TOKEN_INVALID", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: login,
      headers: bearer("expired.or.forged"),
    });
    assert.deepEqual(await codeOf(res), [401, "TOKEN_INVALID"]);
  });

  await t.step("a good key from outside its whitelist: 401 IP_NOT_ALLOWED", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: login,
      headers: apiKey(key.value),
      ip: "203.0.113.1",
    });
    assert.deepEqual(await codeOf(res), [401, "IP_NOT_ALLOWED"]);
  });

  await t.step("a good key needs no particular scope there", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: login,
      headers: apiKey(key.value),
      ip: "198.51.100.1",
    });
    assert.deepEqual(await codeOf(res), [200, undefined]);
  });

  await t.step("nothing was created by the refused sign-ups", async () => {
    let users = 0;
    for await (const _ of svc.kv.list({ prefix: ["users"] })) users++;
    assert.equal(users, 2);
  });
});

Deno.test("the client address is the TCP peer; X-Forwarded-For only from a trusted proxy", async (t) => {
  async function whitelisted(settings: { TRUST_PROXY?: string } = {}) {
    const svc = await setup({ settings });
    const user = await signUp(svc);
    const key = await createKey(svc, user.token, {
      scopes: ["profile:read"],
      ipWhitelist: ["198.51.100.7", "2001:db8::/32"],
    });
    const call = async (ip: string, xff?: string) => {
      const headers: Record<string, string> = { "X-API-Key": key.value };
      if (xff !== undefined) headers["X-Forwarded-For"] = xff;
      return (await codeOf(await svc.request("/v1/users/me", { headers, ip })))[0];
    };
    return { svc, call };
  }

  await t.step("without TRUST_PROXY, X-Forwarded-For is ignored", async () => {
    const { svc, call } = await whitelisted();
    await using _ = svc;
    assert.equal(await call("10.0.0.1", "198.51.100.7"), 401);
    assert.equal(await call("198.51.100.7", "10.0.0.1"), 200);
  });

  await t.step("an IPv4-mapped IPv6 peer is treated as its IPv4 address", async () => {
    const { svc, call } = await whitelisted();
    await using _ = svc;
    assert.equal(await call("::ffff:198.51.100.7"), 200);
    assert.equal(await call("::ffff:198.51.100.8"), 401);
    assert.equal(await call("2001:db8::5"), 200);
    assert.equal(await call("2001:db9::5"), 401);
  });

  await t.step("behind a trusted proxy, the forwarded client address counts", async () => {
    const { svc, call } = await whitelisted({ TRUST_PROXY: "10.0.0.0/8" });
    await using _ = svc;
    assert.equal(await call("10.0.0.1", "198.51.100.7"), 200);
    assert.equal(await call("10.0.0.1", "203.0.113.5"), 401);
    assert.equal(await call("10.0.0.1", "::ffff:198.51.100.7"), 200, "mapped in XFF");
    assert.equal(await call("10.0.0.1", "2001:db8::9"), 200, "IPv6 in XFF");
  });

  await t.step("a peer that is not a trusted proxy cannot forward an address", async () => {
    const { svc, call } = await whitelisted({ TRUST_PROXY: "10.0.0.0/8" });
    await using _ = svc;
    assert.equal(await call("203.0.113.5", "198.51.100.7"), 401);
  });

  await t.step(
    "the right-most untrusted hop is the client; spoofed entries left of it are ignored",
    async () => {
      const { svc, call } = await whitelisted({ TRUST_PROXY: "10.0.0.0/8" });
      await using _ = svc;
      assert.equal(await call("10.0.0.1", "198.51.100.7, 203.0.113.5, 10.0.0.2"), 401);
      assert.equal(await call("10.0.0.1", "203.0.113.5, 198.51.100.7, 10.0.0.2"), 200);
      assert.equal(await call("10.0.0.1", "203.0.113.5,198.51.100.7"), 200);
    },
  );

  await t.step(
    "a trusted proxy sending no or a garbled X-Forwarded-For is the client itself",
    async () => {
      const { svc, call } = await whitelisted({ TRUST_PROXY: "198.51.100.7" });
      await using _ = svc;
      assert.equal(await call("198.51.100.7"), 200);
      assert.equal(await call("198.51.100.7", "not-an-address"), 200);
      assert.equal(await call("198.51.100.7", ""), 200);
    },
  );

  await t.step("an IPv6 proxy can be trusted too", async () => {
    const { svc, call } = await whitelisted({ TRUST_PROXY: "fd00::/8" });
    await using _ = svc;
    assert.equal(await call("fd00::1", "198.51.100.7"), 200);
    assert.equal(await call("fd00::1", "203.0.113.5"), 401);
  });
});
