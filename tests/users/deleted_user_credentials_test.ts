import assert from "node:assert/strict";
import { sign } from "hono/jwt";
import { sessionClaims } from "../../domain/users/session.ts";
import { sessions, users } from "../../kv/keyspace.ts";
import { createSession } from "../../kv/users/sessions.ts";
import { apiKey, bearer, createKey, setup, sharedInstances, signUp } from "../helpers.ts";

const keyBody = { name: "late", scopes: ["tasks:read"], expiresInDays: 365 };

Deno.test("a deleted account keeps no working credential: logins racing DELETE issue none that works", async (t) => {
  await t.step("logins sent just before DELETE /v1/users/:id", async () => {
    // A real hash cost, so that the deletion lands while the passwords are being checked.
    await using svc = await setup({ settings: { PASSWORD_HASH_ITERATIONS: 300_000 } });
    const user = await signUp(svc);
    const login = { method: "POST", json: { email: user.email, password: user.password } };
    const logins = Array.from({ length: 8 }, () => svc.request("/v1/auth/token", login));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const deleted = await svc.request(`/v1/users/${user.id}`, {
      method: "DELETE",
      headers: bearer(user.token),
    });
    assert.equal(deleted.status, 200);
    for (const res of await Promise.all(logins)) {
      if (res.status !== 200) {
        assert.equal(res.status, 401);
        await res.body?.cancel();
        continue;
      }
      const { token } = await res.json();
      const key = await svc.request("/api/v1/keys", {
        method: "POST",
        headers: bearer(token),
        json: keyBody,
      });
      assert.equal(key.status, 401, `a racing login's token created a key: ${await key.text()}`);
      const tasks = await svc.request("/v1/tasks", { headers: bearer(token) });
      await tasks.body?.cancel();
      assert.equal(tasks.status, 401);
    }
  });

  await t.step("credential writes check the account in their atomic", async () => {
    await using svc = await setup();
    const user = await signUp(svc);
    const key = await createKey(svc, user.token);
    await svc.request(`/v1/users/${user.id}`, { method: "DELETE", headers: bearer(user.token) });
    const session = { id: crypto.randomUUID(), userId: user.id, expiresAt: "2999-01-01T00:00:00Z" };
    assert.equal(await createSession(svc.kv, { session, now: Date.now(), network: "x" }), false);
    assert.equal((await svc.kv.get(sessions.record(session.id))).value, null);
    // A session that got in anyway (written before the fix's check existed) is refused when used.
    await svc.kv.set(sessions.record(session.id), session);
    const claims = sessionClaims({ userId: user.id, sessionId: session.id }, Date.now(), 1);
    const token = await sign(claims, svc.deps.jwtSecret, "HS256");
    const me = await svc.request("/v1/tasks", { headers: bearer(token) });
    await me.body?.cancel();
    assert.equal(me.status, 401);
    const regenerate = await svc.request(`/api/v1/keys/${key.id}/regenerate`, {
      method: "POST",
      headers: bearer(token),
    });
    await regenerate.body?.cancel();
    assert.equal(regenerate.status, 401);
  });

  await t.step("another instance refuses the account's key within a second", async () => {
    let offset = 0;
    await using fleet = await sharedInstances(2, { deps: { now: () => Date.now() + offset } });
    const [a, b] = fleet.list;
    const user = await signUp(a);
    const key = await createKey(a, user.token);
    const before = await b.request("/v1/tasks", { headers: apiKey(key.value) });
    await before.body?.cancel();
    assert.equal(before.status, 200);
    // The account's record says deleted, yet its key record is still there (the deletion's
    // revocations have not run): the owner's liveness alone must refuse it.
    const record = await a.kv.get<Record<string, unknown>>(users.record(user.id));
    await a.kv.set(users.record(user.id), { ...record.value, deletedAt: new Date().toISOString() });
    await a.kv.set(users.changed(), user.id);
    offset = 1_100;
    const after = await b.request("/v1/tasks", { headers: apiKey(key.value) });
    await after.body?.cancel();
    assert.equal(after.status, 401);
  });
});
