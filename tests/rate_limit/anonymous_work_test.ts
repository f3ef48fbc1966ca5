import assert from "node:assert/strict";
import { apiKey, createKey, setup, signUp } from "../helpers.ts";

async function statusOf(res: Promise<Response>): Promise<number> {
  const answer = await res;
  await answer.body?.cancel();
  return answer.status;
}

Deno.test("the work an address causes without a credential is bounded: failing credentials, pages, unknown routes and password hashes draw from its budgets", async (t) => {
  await using svc = await setup({
    settings: { ANON_RATE_LIMIT_PER_HOUR: 5, PASSWORD_HASHES_PER_HOUR: 3 },
  });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const madeUp = "svc_" + "0".repeat(56) + "00000000";

  await t.step("failing credentials draw from the address's anonymous budget", async () => {
    const ip = "192.0.2.1";
    const unknownKey = "svc_" + "ab".repeat(32);
    for (const headers of [apiKey(madeUp), apiKey(unknownKey), { Authorization: "Bearer x.y.z" }]) {
      assert.equal(await statusOf(svc.request("/v1/users/me", { headers, ip })), 401);
    }
    assert.equal(await statusOf(svc.request("/v1/tasks/explore", { ip })), 200);
    assert.equal(await statusOf(svc.request("/v1/users/me", { headers: apiKey(madeUp), ip })), 401);
    const spent = await svc.request("/v1/users/me", { headers: apiKey(unknownKey), ip });
    assert.equal(spent.status, 429);
    assert.equal((await spent.json()).code, "RATE_LIMITED");
    // A good key from the same address draws from its own budget.
    const good = svc.request("/v1/users/me", { headers: apiKey(key.value), ip });
    assert.equal(await statusOf(good), 200);
  });

  await t.step("the dashboard, /docs and unknown routes draw from it too", async () => {
    const ip = "192.0.2.2";
    for (const path of ["/dashboard", "/dashboard/app.js", "/docs", "/nowhere", "/v1/nowhere"]) {
      assert.notEqual(await statusOf(svc.request(path, { ip })), 429, path);
    }
    for (const path of ["/dashboard", "/docs", "/nowhere", "/v1/nowhere"]) {
      assert.equal(await statusOf(svc.request(path, { ip })), 429, path);
    }
    assert.equal(await statusOf(svc.request("/health", { ip })), 200, "probes stay free");
  });

  await t.step("sign-ups and logins, a password hash each, have a tighter allowance", async () => {
    const ip = "192.0.2.3";
    const login = { method: "POST", json: { email: user.email, password: "wrong password" }, ip };
    assert.equal(await statusOf(svc.request("/v1/auth/token", login)), 401);
    const signUpBody = { email: "new@example.com", password: "long enough", firstName: "N" };
    const created = svc.request("/v1/users", { method: "POST", json: signUpBody, ip });
    assert.equal(await statusOf(created), 201);
    assert.equal(await statusOf(svc.request("/v1/auth/token", login)), 401);
    const refused = await svc.request("/v1/auth/token", login);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("Retry-After")) > 0);
    await refused.body?.cancel();
    const again = { ...signUpBody, email: "other@example.com" };
    assert.equal(
      await statusOf(svc.request("/v1/users", { method: "POST", json: again, ip })),
      429,
    );
  });
});
