/** The exact limits of rare actions: key creation per account, failed logins per email and network. */
import assert from "node:assert/strict";
import { bearer, setup, signUp } from "../helpers.ts";
import { HALF_PAST, MINUTE, statusOf } from "./rate_limits_helpers.ts";

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
