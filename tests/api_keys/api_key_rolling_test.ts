/**
 * Rolling a key (docs/contract.md section 14): a regeneration may keep the current value working for a
 * grace period beside the new one, on every instance, until `previousExpiresAt`.
 */
import assert from "node:assert/strict";
import { keyDigest } from "../../domain/api_key.ts";
import { apiKeys } from "../../kv/keyspace.ts";
import {
  apiKey,
  bearer,
  createKey,
  setup,
  sharedInstances,
  signUp,
  type TestContext,
} from "../helpers.ts";
import { keyStatus } from "./api_key_fixtures.ts";

const HOUR = 3_600_000;
const START = Date.parse("2030-03-01T12:00:00.000Z");
// Sessions outliving the days the clock skips.
const LONG_SESSIONS = { SESSION_TTL_HOURS: 24 * 30 };

async function regenerate(
  svc: TestContext,
  token: string,
  id: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const res = await svc.request(`/api/v1/keys/${id}/regenerate`, {
    method: "POST",
    headers: bearer(token),
    ...(body === undefined ? {} : { json: body }),
  });
  return { status: res.status, body: await res.json() };
}

async function metadata(svc: TestContext, token: string, id: string) {
  const list = await (await svc.request("/api/v1/keys", { headers: bearer(token) })).json();
  return list.find((k: { id: string }) => k.id === id);
}

Deno.test("with a grace both values work, and only the new one after previousExpiresAt", async (t) => {
  let now = START;
  await using svc = await setup({ settings: LONG_SESSIONS, deps: { now: () => now } });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const rolled = await regenerate(svc, user.token, key.id, { expireCurrentIn: "1h" });

  await t.step("the answer carries the new value and the old value's deadline", () => {
    assert.equal(rolled.status, 200);
    assert.notEqual(rolled.body.key, key.value);
    assert.equal(rolled.body.previousExpiresAt, new Date(START + HOUR).toISOString());
  });

  await t.step("during the grace both values authenticate", async () => {
    assert.equal(await keyStatus(svc, key.value), 200);
    assert.equal(await keyStatus(svc, rolled.body.key), 200);
    now = START + HOUR - 1;
    assert.equal(await keyStatus(svc, key.value), 200, "a millisecond before the deadline");
  });

  await t.step("the listing shows previousExpiresAt while the grace runs", async () => {
    assert.equal(
      (await metadata(svc, user.token, key.id)).previousExpiresAt,
      new Date(START + HOUR).toISOString(),
    );
  });

  await t.step(
    "at the deadline the cached old value fails, with no change marker moving",
    async () => {
      const marker = await svc.kv.get(apiKeys.changed());
      now = START + HOUR;
      const old = await svc.request("/v1/users/me", { headers: apiKey(key.value) });
      assert.equal(old.status, 401);
      assert.equal((await old.json()).code, "API_KEY_INVALID");
      assert.equal(await keyStatus(svc, rolled.body.key), 200);
      assert.equal((await svc.kv.get(apiKeys.changed())).versionstamp, marker.versionstamp);
    },
  );

  await t.step("previousExpiresAt is null once the grace is over", async () => {
    assert.equal((await metadata(svc, user.token, key.id)).previousExpiresAt, null);
  });
});

Deno.test("the default, an absent or an empty body, or now: the old value fails at once", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  for (
    const [label, body] of [
      ["no body", undefined],
      ["{}", {}],
      ['{"expireCurrentIn":"now"}', { expireCurrentIn: "now" }],
    ] as const
  ) {
    await t.step(label, async () => {
      const key = await createKey(svc, user.token);
      const rolled = await regenerate(svc, user.token, key.id, body);
      assert.equal(rolled.status, 200);
      assert.equal(rolled.body.previousExpiresAt, null);
      assert.equal(await keyStatus(svc, key.value), 401);
      assert.equal(await keyStatus(svc, rolled.body.key), 200);
    });
  }

  await t.step("a JSON content type with an empty body also means now", async () => {
    const key = await createKey(svc, user.token);
    const res = await svc.request(`/api/v1/keys/${key.id}/regenerate`, {
      method: "POST",
      headers: { ...bearer(user.token), "Content-Type": "application/json" },
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).previousExpiresAt, null);
    assert.equal(await keyStatus(svc, key.value), 401);
  });

  await t.step("an unknown grace answers 400 naming expireCurrentIn", async () => {
    const key = await createKey(svc, user.token);
    const res = await regenerate(svc, user.token, key.id, { expireCurrentIn: "2h" });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].path, "expireCurrentIn");
    assert.equal(await keyStatus(svc, key.value), 200, "the key is untouched");
  });
});

Deno.test("revoking a key in its grace ends both values at once", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const rolled = await regenerate(svc, user.token, key.id, { expireCurrentIn: "7d" });
  assert.equal(await keyStatus(svc, key.value), 200);
  const res = await svc.request(`/api/v1/keys/${key.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(await keyStatus(svc, key.value), 401);
  assert.equal(await keyStatus(svc, rolled.body.key), 401);
  for (const value of [key.value, rolled.body.key]) {
    const entry = await svc.kv.get(apiKeys.byDigest(await keyDigest(value)));
    assert.equal(entry.value, null, "no digest index entry is left");
  }
});

Deno.test("regenerating again during a grace ends the older previous value at once", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const first = await createKey(svc, user.token);
  const second = await regenerate(svc, user.token, first.id, { expireCurrentIn: "24h" });
  const third = await regenerate(svc, user.token, first.id, { expireCurrentIn: "1h" });

  await t.step(
    "the first value fails, the second works for the new grace, the third works",
    async () => {
      assert.equal(await keyStatus(svc, first.value), 401);
      assert.equal(await keyStatus(svc, second.body.key), 200);
      assert.equal(await keyStatus(svc, third.body.key), 200);
    },
  );

  await t.step("the digest index holds exactly the two live values", async () => {
    const refs = await Promise.all(
      [first.value, second.body.key, third.body.key].map(async (v) =>
        (await svc.kv.get(apiKeys.byDigest(await keyDigest(v)))).value !== null
      ),
    );
    assert.deepEqual(refs, [false, true, true]);
  });

  await t.step("a regeneration with now ends every old value", async () => {
    const fourth = await regenerate(svc, user.token, first.id, { expireCurrentIn: "now" });
    assert.equal(await keyStatus(svc, second.body.key), 401);
    assert.equal(await keyStatus(svc, third.body.key), 401);
    assert.equal(await keyStatus(svc, fourth.body.key), 200);
  });
});

Deno.test("a grace never outlives the key's own expiry", async () => {
  let now = START;
  await using svc = await setup({ settings: LONG_SESSIONS, deps: { now: () => now } });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { expiresInDays: 1 });
  now = START + 23 * HOUR;
  const rolled = await regenerate(svc, user.token, key.id, { expireCurrentIn: "7d" });
  assert.equal(rolled.body.previousExpiresAt, key.metadata.expiresAt);
});

Deno.test("a second instance honours the grace and its deadline", async (t) => {
  let now = START;
  await using group = await sharedInstances(2, {
    settings: LONG_SESSIONS,
    deps: { now: () => now },
  });
  const [a, b] = group.list;
  const user = await signUp(a);
  const key = await createKey(a, user.token);

  await t.step("B caches the key, then A rolls it with a 1 h grace", async () => {
    assert.equal(await keyStatus(b, key.value), 200);
    const rolled = await regenerate(a, user.token, key.id, { expireCurrentIn: "1h" });
    assert.equal(rolled.status, 200);
    await b.deps.apiKeyCache.poll();
    assert.equal(await keyStatus(b, key.value), 200, "the old value still works on B");
    assert.equal(await keyStatus(b, rolled.body.key), 200, "the new value works on B");
    assert.equal(b.deps.apiKeyCache.size, 2);
  });

  await t.step("at the deadline B refuses the old value from its cache", async () => {
    await b.deps.apiKeyCache.poll();
    now = START + HOUR;
    assert.equal(await keyStatus(b, key.value), 401);
    assert.equal(await keyStatus(a, key.value), 401);
  });
});

Deno.test("a misspelt regenerate option answers 400 instead of meaning now", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const res = await regenerate(svc, user.token, key.id, { expireCurrentin: "1h" });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, "UNKNOWN_PARAMETER");
  assert.match(res.body.errors[0].message, /did you mean "expireCurrentIn"\?/);
  assert.equal(await keyStatus(svc, key.value), 200, "the key is untouched");
});
