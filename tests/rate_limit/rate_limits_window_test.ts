/** The sliding window of a request budget: when units leave it, the RateLimit t and Retry-After. */
import assert from "node:assert/strict";
import { createKey, setup, signUp } from "../helpers.ts";
import { admitted, at, me, MINUTE, rateLimitT, statusOf } from "./rate_limits_helpers.ts";

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
