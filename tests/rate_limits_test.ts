import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "./helpers.ts";

const HOUR = 3_600_000;
/** Half past an hour: the previous hour's bucket still weighs half. */
const HALF_PAST = Date.parse("2030-03-01T12:30:00.000Z");

function me(svc: TestContext, key: string, ip?: string) {
  return svc.request("/v1/users/me", { headers: apiKey(key), ip });
}

async function statusOf(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

/** Sends `send` until it is refused (at most `max` times); returns how many were allowed. */
async function admitted(send: () => Promise<Response>, max = 100): Promise<number> {
  for (let i = 0; i < max; i++) {
    const res = await send();
    await res.body?.cancel();
    if (res.status === 429) return i;
    assert.equal(res.status, 200);
  }
  return max;
}

Deno.test("API-key requests are limited per key, with the headers of API.md section 10", async (t) => {
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
        const t = Number(/^"default";r=(\d+);t=(\d+)$/.exec(res.headers.get("RateLimit")!)?.[2]);
        assert.equal(res.headers.get("RateLimit"), `"default";r=${remaining};t=${t}`);
        assert.ok(t > 0 && t <= 7200, `t=${t}`);
        assert.equal(res.headers.get("X-RateLimit-Limit"), "3");
        assert.equal(res.headers.get("X-RateLimit-Remaining"), String(remaining));
        assert.equal(res.headers.get("X-RateLimit-Reset"), String(Math.ceil(now / 1000) + t));
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
    // 3 requests in this hour's bucket at half past: the window holds 2 or fewer once the
    // next bucket is a third gone, 30 + 20 minutes from now.
    assert.equal(res.headers.get("Retry-After"), "3000");
    assert.equal(res.headers.get("RateLimit"), '"default";r=0;t=3000');
    assert.equal(res.headers.get("X-RateLimit-Remaining"), "0");
    assert.equal(res.headers.get("X-RateLimit-Reset"), String(now / 1000 + 3000));
  });

  await t.step("another key of the same account has its own budget", async () => {
    const res = await me(svc, other.value);
    assert.equal(await statusOf(res), 200);
    assert.equal(res.headers.get("X-RateLimit-Remaining"), "2");
  });

  await t.step("a refused request does not use budget; Retry-After is exact", async () => {
    now += 2_999_000;
    assert.equal(await statusOf(await me(svc, key.value)), 429);
    now += 1_000;
    assert.equal(await statusOf(await me(svc, key.value)), 200);
    assert.equal(await statusOf(await me(svc, key.value)), 429);
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
      assert.equal(revoked.headers.get("RateLimit"), null, "a refused credential draws nothing");
    },
  );
});

Deno.test("the window slides: the previous hour's count fades as the hour goes by", async (t) => {
  let now = Date.parse("2030-03-01T12:59:00.000Z");
  await using svc = await setup({
    settings: { RATE_LIMIT_PER_HOUR: 10 },
    deps: { now: () => now },
  });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const send = () => me(svc, key.value);

  await t.step("10 requests at 12:59 spend the budget", async () => {
    assert.equal(await admitted(send), 10);
  });
  await t.step("at 13:00 the last hour still counts whole: nothing is allowed", async () => {
    now = Date.parse("2030-03-01T13:00:00.000Z");
    assert.equal(await admitted(send), 0);
  });
  await t.step("at 13:30 half of it has slid out: 5 are allowed", async () => {
    now = Date.parse("2030-03-01T13:30:00.000Z");
    assert.equal(await admitted(send), 5);
  });
  await t.step("at 13:45 a quarter of the 12:00 hour is left (2.5) plus 5: 2 more", async () => {
    now = Date.parse("2030-03-01T13:45:00.000Z");
    assert.equal(await admitted(send), 2);
  });
  await t.step("at 14:00 the 13:00 hour's 7 count whole: 3 are allowed", async () => {
    now = Date.parse("2030-03-01T14:00:00.000Z");
    assert.equal(await admitted(send), 3);
  });
  await t.step("two hours after the last request the whole budget is back", async () => {
    now = Date.parse("2030-03-01T16:00:00.000Z");
    assert.equal(await admitted(send), 10);
  });
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

Deno.test("POST /api/v1/keys is limited to KEY_CREATION_PER_MINUTE per account, exactly", async (t) => {
  let now = HALF_PAST;
  await using svc = await setup({
    settings: { KEY_CREATION_PER_MINUTE: 3 },
    deps: { now: () => now },
  });
  const user = await signUp(svc);
  const create = () =>
    svc.request("/api/v1/keys", {
      method: "POST",
      headers: bearer(user.token),
      json: { name: "k", scopes: ["tasks:read"], expiresInDays: 1 },
    });

  await t.step("six concurrent creations: exactly three get 201, three 429", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, create));
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 201, 201, 429, 429, 429]);
    for (const res of answers) {
      const body = await res.json();
      if (res.status === 201) continue;
      assert.equal(body.code, "RATE_LIMITED");
      assert.ok(Number(res.headers.get("Retry-After")) > 0);
    }
  });

  await t.step("after Retry-After seconds a creation is allowed again", async () => {
    const refused = await create();
    assert.equal(refused.status, 429);
    const wait = Number(refused.headers.get("Retry-After"));
    await refused.body?.cancel();
    now += (wait - 1) * 1000;
    assert.equal(await statusOf(await create()), 429);
    now += 1000;
    assert.equal(await statusOf(await create()), 201);
  });

  await t.step("another account has its own count", async () => {
    const other = await signUp(svc);
    const res = await svc.request("/api/v1/keys", {
      method: "POST",
      headers: bearer(other.token),
      json: { name: "k", scopes: ["tasks:read"], expiresInDays: 1 },
    });
    assert.equal(await statusOf(res), 201);
  });
});

Deno.test("failed logins are limited per email: 10 per 15 minutes, then 429", async (t) => {
  let now = HALF_PAST;
  await using svc = await setup({ deps: { now: () => now } });
  const user = await signUp(svc);
  const login = (email: string, password: string) =>
    svc.request("/v1/auth/token", { method: "POST", json: { email, password } });

  for (
    const [what, email] of [["a known email", user.email], [
      "an unknown email",
      "nobody@example.com",
    ]]
  ) {
    await t.step(
      `${what}: 10 wrong passwords answer 401, the 11th 429 with Retry-After`,
      async () => {
        for (let i = 0; i < 10; i++) {
          const res = await login(email, "wrong password!");
          assert.equal(res.status, 401);
          assert.equal((await res.json()).code, "INVALID_CREDENTIALS");
        }
        const res = await login(email, "wrong password!");
        assert.equal(res.status, 429);
        assert.equal((await res.json()).code, "RATE_LIMITED");
        assert.ok(Number(res.headers.get("Retry-After")) > 0);
      },
    );
  }

  await t.step("while limited, even the right password is refused (no oracle)", async () => {
    assert.equal(await statusOf(await login(user.email, user.password)), 429);
    assert.equal(
      await statusOf(await login(user.email.toUpperCase(), user.password)),
      429,
      "the email is compared as the account's email is, ignoring case",
    );
  });

  await t.step("another email is not affected", async () => {
    const other = await signUp(svc);
    assert.equal(await statusOf(await login(other.email, other.password)), 200);
  });

  await t.step("after Retry-After the right password works again", async () => {
    const res = await login(user.email, user.password);
    const wait = Number(res.headers.get("Retry-After"));
    await res.body?.cancel();
    now += wait * 1000;
    assert.equal(await statusOf(await login(user.email, user.password)), 200);
  });
});
