import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "./helpers.ts";

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Half past an hour, on a minute's start: a unit admitted now leaves exactly an hour later. */
const HALF_PAST = Date.parse("2030-03-01T12:30:00.000Z");
const at = (hhmmss: string) => Date.parse(`2030-03-01T${hhmmss}.000Z`);

function rateLimitT(res: Response): number {
  return Number(/^"default";r=\d+;t=(\d+)$/.exec(res.headers.get("RateLimit")!)?.[1]);
}

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

Deno.test("the window slides minute by minute: each request leaves it an hour after its minute began", async (t) => {
  let now = at("12:00:30");
  await using svc = await setup({
    settings: { RATE_LIMIT_PER_HOUR: 10 },
    deps: { now: () => now },
  });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const send = () => me(svc, key.value);

  await t.step("one request a minute from 12:00:30 to 12:09:30 spends the budget", async () => {
    for (let minute = 0; minute < 10; minute++) {
      now = at("12:00:30") + minute * MINUTE;
      assert.equal(await admitted(send, 1), 1);
    }
    now = at("12:10:30");
    assert.equal(await admitted(send), 0);
  });
  await t.step("at 12:59:59 nothing has left yet", async () => {
    now = at("12:59:59");
    assert.equal(await admitted(send), 0);
  });
  await t.step("from 13:00 one more each minute, as each minute of requests leaves", async () => {
    for (let minute = 0; minute < 10; minute++) {
      now = at("13:00:00") + minute * MINUTE;
      assert.equal(await admitted(send), 1, `at 13:0${minute}`);
      now += 59_999;
      assert.equal(await admitted(send), 0, `still one minute later`);
    }
  });
  await t.step("an hour after the last request the whole budget is back", async () => {
    now = at("14:10:00");
    assert.equal(await admitted(send), 10);
  });
});

Deno.test("t never exceeds w and counts down to when the oldest counted request leaves", async (t) => {
  let now = at("12:00:10");
  await using svc = await setup({
    settings: { RATE_LIMIT_PER_HOUR: 10 },
    deps: { now: () => now },
  });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);

  await t.step("consecutive requests agree: one reset instant, t shrinking with time", async () => {
    const seen: { t: number; reset: string | null }[] = [];
    for (const time of ["12:00:10", "12:00:11", "12:20:30", "12:40:50", "12:59:59"]) {
      now = at(time);
      const res = await me(svc, key.value);
      assert.equal(await statusOf(res), 200);
      seen.push({ t: rateLimitT(res), reset: res.headers.get("X-RateLimit-Reset") });
      // The oldest counted request was admitted in the minute of 12:00: it leaves at 13:00.
      assert.equal(rateLimitT(res), (at("13:00:00") - now) / 1000);
    }
    assert.deepEqual(new Set(seen.map((s) => s.reset)), new Set([String(at("13:00:00") / 1000)]));
    assert.ok(seen.every((s) => s.t <= 3600));
  });

  await t.step("once it has left, the next oldest sets t", async () => {
    now = at("13:00:00");
    const res = await me(svc, key.value);
    assert.equal(await statusOf(res), 200);
    assert.equal(rateLimitT(res), 20 * 60, "the request of 12:20:30 leaves at 13:20");
  });

  await t.step(
    "a fresh key's first request: t is at most w at every second of a minute",
    async () => {
      for (let second = 0; second < 60; second += 7) {
        now = at("15:00:00") + second * 1000;
        const fresh = await createKey(svc, user.token);
        const res = await me(svc, fresh.value);
        assert.equal(await statusOf(res), 200);
        assert.equal(rateLimitT(res), 3600 - second);
      }
    },
  );
});

Deno.test("Retry-After on a 429 is the time until a request would be admitted", async (t) => {
  let now = at("12:00:10");
  await using svc = await setup({
    settings: { RATE_LIMIT_PER_HOUR: 3 },
    deps: { now: () => now },
  });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const send = () => me(svc, key.value);
  assert.equal(await admitted(send, 1), 1);
  now = at("12:30:00");
  assert.equal(await admitted(send), 2);

  for (const time of ["12:30:00", "12:45:00", "12:59:59"]) {
    await t.step(
      `at ${time}: Retry-After is the seconds until 13:00; a second early is refused`,
      async () => {
        now = at(time);
        const res = await send();
        assert.equal(await statusOf(res), 429);
        const wait = Number(res.headers.get("Retry-After"));
        assert.equal(wait, (at("13:00:00") - now) / 1000);
        assert.equal(rateLimitT(res), wait);
        if (wait > 1) {
          now += (wait - 1) * 1000;
          assert.equal(await statusOf(await send()), 429);
          now = at(time);
        }
      },
    );
  }

  await t.step("at 13:00:00, after the wait, exactly one is admitted", async () => {
    now = at("13:00:00");
    assert.equal(await admitted(send), 1);
    const res = await send();
    assert.equal(await statusOf(res), 429);
    assert.equal(res.headers.get("Retry-After"), String(30 * 60), "next: the two of 12:30");
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
  /** When set, the clock reads alternately the last millisecond of a second and the next one. */
  let straddle: number | null = null;
  let reads = 0;
  await using svc = await setup({
    settings: { KEY_CREATION_PER_MINUTE: 3 },
    deps: { now: () => straddle === null ? now : straddle - 1 + (reads++ % 2) },
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

  await t.step(
    "concurrent creations on either side of a slot boundary: still exactly three",
    async () => {
      const other = await signUp(svc);
      straddle = HALF_PAST + 5 * MINUTE;
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          svc.request("/api/v1/keys", {
            method: "POST",
            headers: bearer(other.token),
            json: { name: "k", scopes: ["tasks:read"], expiresInDays: 1 },
          })),
      );
      straddle = null;
      for (const res of answers) await res.body?.cancel();
      assert.equal(answers.filter((r) => r.status === 201).length, 3);
      assert.equal(answers.filter((r) => r.status === 429).length, 5);
    },
  );
});

Deno.test("failed logins are limited per email and network: 10 per 15 minutes, then 429", async (t) => {
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
