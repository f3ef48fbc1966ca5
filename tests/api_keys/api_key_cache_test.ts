import assert from "node:assert/strict";
import { keyDigest } from "../../domain/api_key.ts";
import { apiKeys } from "../../kv/keyspace.ts";
import { bearer, createKey, setup, sharedInstances, signUp } from "../helpers.ts";
import { keyStatus } from "./api_key_fixtures.ts";

Deno.test("a key in use is authenticated from memory, not from KV per request", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  assert.equal(await keyStatus(svc, key.value), 200);
  assert.equal(svc.deps.apiKeyCache.size, 1);
  // Remove the digest index behind the cache's back: a KV read would now find nothing.
  await svc.kv.delete(apiKeys.byDigest(await keyDigest(key.value)));
  assert.equal(await keyStatus(svc, key.value), 200);
});

Deno.test("key changes on one instance reach another on the same KV file within a second", async (t) => {
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  // Two handles on one file: as two processes, neither sees the other's memory.
  await using group = await sharedInstances(2, { deps: { now: () => now } });
  const [a, b] = group.list;
  const user = await signUp(a);
  const key = await createKey(a, user.token);
  const other = await createKey(a, user.token);

  await t.step("B authenticates the keys and caches them", async () => {
    assert.equal(await keyStatus(b, key.value), 200);
    assert.equal(await keyStatus(b, other.value), 200);
    assert.equal(b.deps.apiKeyCache.size, 2);
  });

  await t.step("a key revoked via A is refused by A at once", async () => {
    assert.equal(await keyStatus(a, key.value), 200);
    const res = await a.request(`/api/v1/keys/${key.id}`, {
      method: "DELETE",
      headers: bearer(user.token),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await keyStatus(a, key.value), 401);
  });

  await t.step("B refuses it after its next poll (every 250 ms)", async () => {
    await b.deps.apiKeyCache.poll();
    assert.equal(await keyStatus(b, key.value), 401);
    assert.equal(await keyStatus(b, other.value), 200, "other keys are read again, still valid");
  });

  await t.step(
    "with no poll timer at all, B checks for changes once its view is a second old",
    async () => {
      const res = await a.request(`/api/v1/keys/${other.id}/regenerate`, {
        method: "POST",
        headers: bearer(user.token),
      });
      const regenerated = (await res.json()).key as string;
      now += 1_001;
      assert.equal(await keyStatus(b, other.value), 401, "the old value fails");
      assert.equal(await keyStatus(b, regenerated), 200, "the new value works");
    },
  );

  await t.step("a whitelist set via A holds on B after a poll", async () => {
    const third = await createKey(a, user.token);
    assert.equal(await keyStatus(b, third.value, { ip: "203.0.113.5" }), 200);
    const res = await a.request(`/api/v1/keys/${third.id}`, {
      method: "PATCH",
      headers: bearer(user.token),
      json: { ipWhitelist: ["198.51.100.0/24"] },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    await b.deps.apiKeyCache.poll();
    assert.equal(await keyStatus(b, third.value, { ip: "203.0.113.5" }), 401);
    assert.equal(await keyStatus(b, third.value, { ip: "198.51.100.1" }), 200);
  });

  await t.step("an account deleted via A: its keys fail on B after a poll", async () => {
    const fourth = await createKey(a, user.token);
    assert.equal(await keyStatus(b, fourth.value), 200);
    const res = await a.request(`/v1/users/${user.id}`, {
      method: "DELETE",
      headers: bearer(user.token),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await keyStatus(a, fourth.value), 401, "at once on A");
    await b.deps.apiKeyCache.poll();
    assert.equal(await keyStatus(b, fourth.value), 401);
  });
});
