/**
 * Keys across real processes on one KV file (tests/processes/fleet.ts): a rolled key's grace and deadline
 * hold on every member, and its end holds there from the answer on.
 */
import assert from "node:assert/strict";
import type { ApiKeyRecord } from "../../../domain/api_key.ts";
import { apiKeys } from "../../../kv/keyspace.ts";
import { call, fleetSignUp, startFleet } from "../fleet.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function meStatus(base: string, key: string): Promise<number> {
  return (await call(`${base}/v1/users/me`, { headers: { "X-API-Key": key } })).status;
}

/**
 * Polls until `check` holds: an event awaited, not a time assumed. The bound only keeps a broken
 * build from hanging the suite; no passing run comes near it, however loaded the machine.
 */
async function eventually(check: () => Promise<boolean>) {
  const bound = Date.now() + 300_000;
  while (!(await check())) {
    if (Date.now() > bound) throw new Error("the condition never held");
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
    const asked = Date.now(); // the service's clock is this machine's: its grace starts after
    const rolled = await call(`${a}/api/v1/keys/${created.body.id}/regenerate`, {
      method: "POST",
      headers: bearer(token),
      json: { expireCurrentIn: "1h" },
    });
    assert.equal(rolled.status, 200);
    assert.ok(Date.parse(rolled.body.previousExpiresAt) >= asked + 3_600_000);
    fresh = rolled.body.key;
  });

  await t.step("both values work on both instances, from the answer on", async () => {
    for (const base of [a, b]) {
      assert.equal(await meStatus(base, old), 200);
      assert.equal(await meStatus(base, fresh), 200);
    }
  });

  await t.step(
    "the old value fails on both at its deadline, with no change marker moving after it is cached",
    async () => {
      // Stands in for an hour passing: the stored deadline is moved closer, with the key's guard
      // and the change marker written as every change to a key writes them (changeApiKey). Each
      // member's next request sees the guard move with its own first read (kv/api_keys/key_guard.ts),
      // reads the record and caches it; the deadline is then judged from the cached record alone.
      // Tried again further out when the machine is too loaded to cache it on both members before
      // the deadline. (Without the guard, a member that had cached the record since its last poll
      // kept the old deadline: the test then failed on a loaded machine, not the service.)
      await using kv = await Deno.openKv(`${fleet.cwd}/data/marketplace.sqlite3`);
      const userId = (await call(`${a}/v1/users/me`, { headers: bearer(token) })).body.id;
      const key = apiKeys.record(userId, created.body.id);
      let deadline = 0;
      for (let lead = 500; deadline === 0; lead *= 2) {
        const entry = await kv.get<ApiKeyRecord>(key);
        const at = Date.now() + lead;
        const res = await kv.atomic().check(entry)
          .set(key, { ...entry.value!, previousExpiresAt: new Date(at).toISOString() })
          .set(apiKeys.guard(created.body.id), true)
          .set(apiKeys.changed(), userId)
          .commit();
        if (!res.ok) continue; // a last-use write came between
        const statuses = [await meStatus(a, old), await meStatus(b, old)];
        if (Date.now() < at) {
          assert.deepEqual(statuses, [200, 200], "the old value works before its deadline");
          deadline = at;
        }
      }
      const marker = await kv.get(apiKeys.changed());
      await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now() + 1)));
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
      assert.equal(await meStatus(a, fresh), 401);
      assert.equal(await meStatus(b, fresh), 401);
    },
  );
});

Deno.test("usage figures come to equal the requests made across two processes", async () => {
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
  });
  assert.deepEqual(seen, made);
  assert.deepEqual(made, { ok: 90, clientError: 30, rateLimited: 0, serverError: 0 });
  console.log(`usage complete ${Date.now() - started} ms after the last answer`);
});
