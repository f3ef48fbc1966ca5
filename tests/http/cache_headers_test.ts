import assert from "node:assert/strict";
import { apiKey, bearer, setup } from "../helpers.ts";

Deno.test("Cache-Control: no-store on every answer that carries a secret or used a credential, nosniff everywhere", async () => {
  await using svc = await setup();
  const email = "cache@example.com";
  const password = "correct horse battery";
  const signUpRes = await svc.request("/v1/users", {
    method: "POST",
    json: { email, password, firstName: "Ada" },
  });
  const login = await svc.request("/v1/auth/token", { method: "POST", json: { email, password } });
  const { token } = await login.clone().json();
  const created = await svc.request("/api/v1/keys", {
    method: "POST",
    headers: bearer(token),
    json: { name: "k", scopes: ["profile:read", "tasks:read"], expiresInDays: 1 },
  });
  const key = await created.clone().json();
  const regenerated = await svc.request(`/api/v1/keys/${key.id}/regenerate`, {
    method: "POST",
    headers: bearer(token),
  });
  const { key: value } = await regenerated.clone().json();
  const answers: [string, Response][] = [
    ["sign-up", signUpRes],
    ["login", login],
    ["key creation", created],
    ["key regeneration", regenerated],
    ["GET /v1/users/me with a key", await svc.request("/v1/users/me", { headers: apiKey(value) })],
    [
      "GET /v1/users/me with a token",
      await svc.request("/v1/users/me", { headers: bearer(token) }),
    ],
    [
      "a public task read with a key",
      await svc.request(`/v1/tasks/${crypto.randomUUID()}`, {
        headers: apiKey(value),
      }),
    ],
    ["a refused credential", await svc.request("/v1/users/me", { headers: bearer("nope") })],
  ];
  for (const [what, res] of answers) {
    await res.body?.cancel();
    assert.equal(res.headers.get("Cache-Control"), "no-store", what);
    assert.equal(res.headers.get("X-Content-Type-Options"), "nosniff", what);
  }
  const anonymous = await svc.request("/v1/tasks/explore");
  await anonymous.body?.cancel();
  assert.equal(anonymous.headers.get("X-Content-Type-Options"), "nosniff");
  assert.equal(
    anonymous.headers.get("Cache-Control"),
    "public, max-age=0, s-maxage=5",
    "a public answer may be kept by shared caches",
  );
});
