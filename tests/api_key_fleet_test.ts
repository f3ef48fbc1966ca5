/**
 * Keys across real processes on one KV file (tests/fleet.ts): a rolled key's grace and deadline
 * hold on every member.
 */
import assert from "node:assert/strict";
import type { ApiKeyRecord } from "../domain/api_key.ts";
import { apiKeys } from "../kv/keys.ts";
import { call, fleetSignUp, startFleet } from "./fleet.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function meStatus(base: string, key: string): Promise<number> {
  return (await call(`${base}/v1/users/me`, { headers: { "X-API-Key": key } })).status;
}

/** Polls until `check` holds, for at most `ms`; member caches poll their marker every 250 ms. */
async function eventually(check: () => Promise<boolean>, ms = 3_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("the condition did not hold in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("a rolled key's both values work on every instance, and only the new one after", async (t) => {
  await using fleet = await startFleet(2);
  const [a, b] = [fleet.base(0), fleet.base(1)];
  const token = await fleetSignUp(a, "roller@example.com");
  const created = await call(`${a}/api/v1/keys`, {
    method: "POST",
    headers: bearer(token),
    json: { name: "rolled", scopes: ["profile:read"], expiresInDays: 30 },
  });
  assert.equal(created.status, 201);
  const old = created.body.key as string;
  let fresh = "";

  await t.step("B caches the key; A rolls it with a 1 h grace", async () => {
    assert.equal(await meStatus(b, old), 200);
    const rolled = await call(`${a}/api/v1/keys/${created.body.id}/regenerate`, {
      method: "POST",
      headers: bearer(token),
      json: { expireCurrentIn: "1h" },
    });
    assert.equal(rolled.status, 200);
    assert.ok(Date.parse(rolled.body.previousExpiresAt) > Date.now() + 3_590_000);
    fresh = rolled.body.key;
  });

  await t.step("both values work on both instances", async () => {
    await eventually(async () => (await meStatus(b, fresh)) === 200);
    for (const base of [a, b]) {
      assert.equal(await meStatus(base, old), 200);
      assert.equal(await meStatus(base, fresh), 200);
    }
  });

  await t.step(
    "the old value fails on both at its deadline, with no change marker moving after it is cached",
    async () => {
      // Stands in for an hour passing: the stored deadline is moved to 3 s from now, and the
      // marker moved once so that both members load the record with it.
      await using kv = await Deno.openKv(`${fleet.cwd}/data/marketplace.sqlite3`);
      const userId = (await call(`${a}/v1/users/me`, { headers: bearer(token) })).body.id;
      const key = apiKeys.record(userId, created.body.id);
      const entry = await kv.get<ApiKeyRecord>(key);
      const deadline = Date.now() + 3_000;
      const res = await kv.atomic().check(entry)
        .set(key, { ...entry.value!, previousExpiresAt: new Date(deadline).toISOString() })
        .set(apiKeys.changed(), "test")
        .commit();
      assert.ok(res.ok);
      await new Promise((r) => setTimeout(r, 1_000)); // both members poll and reload
      for (const base of [a, b]) assert.equal(await meStatus(base, old), 200);
      const marker = await kv.get(apiKeys.changed());
      await new Promise((r) => setTimeout(r, deadline - Date.now() + 50));
      for (const base of [a, b]) {
        assert.equal(await meStatus(base, old), 401, "the old value is refused");
        assert.equal(await meStatus(base, fresh), 200, "the new value works");
      }
      assert.equal((await kv.get(apiKeys.changed())).versionstamp, marker.versionstamp);
    },
  );

  await t.step(
    "a bodiless regenerate labelled as JSON still ends the old value at once",
    async () => {
      const res = await fetch(`${b}/api/v1/keys/${created.body.id}/regenerate`, {
        method: "POST",
        headers: { ...bearer(token), "Content-Type": "application/json" },
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).previousExpiresAt, null);
      await eventually(async () => (await meStatus(a, fresh)) === 401);
      assert.equal(await meStatus(b, fresh), 401);
    },
  );
});

Deno.test("usage figures equal the requests made across two processes within a minute", async () => {
  await using fleet = await startFleet(2);
  const token = await fleetSignUp(fleet.base(0), "counter@example.com");
  const created = await call(`${fleet.base(0)}/api/v1/keys`, {
    method: "POST",
    headers: bearer(token),
    json: { name: "counted", scopes: ["profile:read"], expiresInDays: 30 },
  });
  const key = created.body.key as string;
  const made = { ok: 0, clientError: 0, rateLimited: 0, serverError: 0 };
  await Promise.all(Array.from({ length: 6 }, async (_, client) => {
    for (let i = 0; i < 20; i++) {
      const path = i % 4 === 3 ? "/v1/tasks/me/created" : "/v1/users/me"; // 403 or 200
      const res = await call(`${fleet.base(client + i)}${path}`, { headers: { "X-API-Key": key } });
      if (res.status === 200) made.ok++;
      else if (res.status === 403) made.clientError++;
      else throw new Error(`unexpected ${res.status}`);
    }
  }));
  const started = Date.now();
  let seen = {};
  await eventually(async () => {
    const res = await call(`${fleet.base(1)}/api/v1/keys/${created.body.id}/usage?range=24h`, {
      headers: bearer(token),
    });
    // Summed over the range: the requests may straddle an hour's end.
    const sum = { ok: 0, clientError: 0, rateLimited: 0, serverError: 0 };
    for (const point of res.body.series) {
      for (const name of Object.keys(sum) as (keyof typeof sum)[]) sum[name] += point[name];
    }
    seen = sum;
    return JSON.stringify(seen) === JSON.stringify(made);
  }, 60_000);
  assert.deepEqual(seen, made);
  assert.deepEqual(made, { ok: 90, clientError: 30, rateLimited: 0, serverError: 0 });
  console.log(`usage complete ${Date.now() - started} ms after the last answer`);
});
