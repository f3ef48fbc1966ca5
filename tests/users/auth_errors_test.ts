/**
 * Authentication errors say how to fix them: a key under the wrong scheme or header
 * name, a missing credential and an expired key each answer with the way to send it right, in
 * the codes and order of docs/contract.md section 2. Revoked and unknown keys stay indistinguishable.
 */
import assert from "node:assert/strict";
import { generateKeyValue } from "../../domain/api_key.ts";
import { apiKey, bearer, createKey, setup, sharedInstances, signUp } from "../helpers.ts";

interface ProblemBody {
  status: number;
  code: string;
  detail: string;
  expiredAt?: string;
  requestId?: string;
}

async function problem(res: Response): Promise<ProblemBody> {
  assert.equal(res.headers.get("Content-Type"), "application/problem+json; charset=utf-8");
  return await res.json();
}

/** The body without what differs on every response, to compare two refusals. */
function comparable({ requestId: _, ...body }: ProblemBody) {
  return body;
}

// Well formed (its checksum holds), so only the store can tell it is unknown.
const unknownKey = generateKeyValue();

Deno.test("a credential sent the wrong way is named, with the way that works", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { scopes: ["profile:read"] });

  await t.step("Authorization: svc_… without Bearer: 401 saying how to send it", async () => {
    for (const value of [key.value, unknownKey]) {
      const res = await svc.request("/v1/users/me", { headers: { Authorization: value } });
      assert.equal(res.status, 401);
      const body = await problem(res);
      assert.equal(body.code, "API_KEY_INVALID");
      assert.match(body.detail, /Authorization: Bearer svc_/);
      assert.match(body.detail, /X-API-Key/);
    }
  });

  await t.step("X-API-Key: Bearer svc_…: 401 saying the header takes the key alone", async () => {
    const res = await svc.request("/v1/users/me", {
      headers: { "X-API-Key": `Bearer ${key.value}` },
    });
    const body = await problem(res);
    assert.equal(body.status, 401);
    assert.equal(body.code, "API_KEY_INVALID");
    assert.match(body.detail, /X-API-Key/);
    assert.match(body.detail, /without Bearer/);
  });

  await t.step("no credential: 401 TOKEN_MISSING naming both headers", async () => {
    const body = await problem(await svc.request("/v1/users/me"));
    assert.equal(body.code, "TOKEN_MISSING");
    assert.match(body.detail, /X-API-Key/);
    assert.match(body.detail, /Authorization: Bearer/);
  });

  await t.step(
    "a key under another header's name: 401 naming it and the headers that work",
    async () => {
      for (const name of ["Api-Key", "X-Api-Token", "apikey"]) {
        const res = await svc.request("/v1/users/me", { headers: { [name]: key.value } });
        assert.equal(res.status, 401);
        const body = await problem(res);
        assert.equal(body.code, "TOKEN_MISSING", name);
        assert.match(body.detail, new RegExp(`header ${name} is not read`, "i"), name);
        assert.match(body.detail, /X-API-Key/);
        assert.match(body.detail, /Authorization: Bearer/);
      }
    },
  );

  await t.step("a scheme other than Bearer is named", async () => {
    const res = await svc.request("/v1/users/me", {
      headers: { Authorization: `Basic ${btoa("a:b")}` },
    });
    const body = await problem(res);
    assert.equal(body.code, "TOKEN_INVALID");
    assert.match(body.detail, /Bearer/);
  });
});

Deno.test("an expired key says when it expired; revoked and unknown keys answer alike", async (t) => {
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  await using svc = await setup({ deps: { now: () => now } });
  const user = await signUp(svc);
  const expiring = await createKey(svc, user.token, { scopes: ["profile:read"], expiresInDays: 1 });
  const revoked = await createKey(svc, user.token, { scopes: ["profile:read"], expiresInDays: 1 });
  const me = (value: string) => svc.request("/v1/users/me", { headers: apiKey(value) });
  // Cached while live, so the expiry is judged on the cached record as well.
  assert.equal((await me(expiring.value)).status, 200);
  const gone = await svc.request(`/api/v1/keys/${revoked.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  assert.equal(gone.status, 200);
  await gone.body?.cancel();

  await t.step(
    "expired: 401 API_KEY_INVALID with expiredAt and the time in the detail",
    async () => {
      now += 2 * 86_400_000;
      const body = await problem(await me(expiring.value));
      assert.equal(body.status, 401);
      assert.equal(body.code, "API_KEY_INVALID");
      assert.equal(body.expiredAt, expiring.metadata.expiresAt);
      assert.ok(body.detail.includes(expiring.metadata.expiresAt), body.detail);
      assert.match(body.detail, /expired/);
    },
  );

  await t.step("revoked (and past its expiry too) answers exactly as an unknown key", async () => {
    const revokedBody = comparable(await problem(await me(revoked.value)));
    const unknownBody = comparable(await problem(await me(unknownKey)));
    assert.deepEqual(revokedBody, unknownBody);
    assert.equal(revokedBody.expiredAt, undefined);
    assert.doesNotMatch(revokedBody.detail, /expired/i);
  });
});

Deno.test("a rolled key's old value says when it stopped", async () => {
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  await using svc = await setup({ deps: { now: () => now } });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { scopes: ["profile:read"] });
  const rolled = await svc.request(`/api/v1/keys/${key.id}/regenerate`, {
    method: "POST",
    headers: bearer(user.token),
    json: { expireCurrentIn: "1h" },
  });
  assert.equal(rolled.status, 200);
  await rolled.body?.cancel();
  now += 2 * 3_600_000;
  const body = await problem(
    await svc.request("/v1/users/me", { headers: apiKey(key.value) }),
  );
  assert.equal(body.code, "API_KEY_INVALID");
  assert.equal(body.expiredAt, new Date(Date.parse("2030-03-01T13:00:00.000Z")).toISOString());
});

Deno.test("a key revoked on another instance after this one cached it answers as unknown", async () => {
  await using shared = await sharedInstances(2);
  const [a, b] = shared.list;
  const user = await signUp(b);
  const key = await createKey(b, user.token, { scopes: ["profile:read"] });
  const me = (value: string) => a.request("/v1/users/me", { headers: apiKey(value) });
  const first = await me(key.value);
  assert.equal(first.status, 200);
  await first.body?.cancel();
  const gone = await b.request(`/api/v1/keys/${key.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  assert.equal(gone.status, 200);
  await gone.body?.cancel();
  // The key guard of kv/api_keys/key_guard.ts judges the record again after the handler.
  const revokedBody = comparable(await problem(await me(key.value)));
  assert.deepEqual(revokedBody, comparable(await problem(await me(unknownKey))));
});
