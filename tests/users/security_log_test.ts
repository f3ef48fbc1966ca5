/** The security log (docs/contract.md section 13): what is logged, with whom and from where, and paging. */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";

const UA = { "User-Agent": "SecurityLogTest/1.0" };

Deno.test("sign-ins, credential, endpoint and profile changes are logged with address and agent", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const headers = { ...bearer(user.token), ...UA };
  const failed = await svc.request("/v1/auth/token", {
    method: "POST",
    headers: UA,
    json: { email: user.email, password: "not the password" },
    ip: "198.51.100.7",
  });
  assert.equal(failed.status, 401);
  const key = await createKey(svc, user.token);
  await svc.request(`/v1/keys/${key.id}`, {
    method: "PATCH",
    headers,
    json: { ipWhitelist: ["10.0.0.0/8"] },
  });
  await svc.request(`/v1/keys/${key.id}`, { method: "PATCH", headers, json: { name: "renamed" } });
  await svc.request(`/v1/keys/${key.id}/regenerate`, { method: "POST", headers });
  await svc.request(`/v1/keys/${key.id}`, { method: "DELETE", headers });
  const hook = await (await svc.request("/v1/webhooks", {
    method: "POST",
    headers,
    json: { url: "https://93.184.215.14/hook", events: ["*"] },
  })).json();
  await svc.request(`/v1/webhooks/${hook.id}`, {
    method: "PATCH",
    headers,
    json: { enabled: false },
  });
  await svc.request(`/v1/webhooks/${hook.id}/rotate-secret`, { method: "POST", headers });
  await svc.request(`/v1/webhooks/${hook.id}`, { method: "DELETE", headers });
  await svc.request(`/v1/users/${user.id}`, { method: "PUT", headers, json: { firstName: "New" } });
  const second = await (await svc.request("/v1/auth/token", {
    method: "POST",
    json: { email: user.email, password: user.password },
  })).json();
  await svc.request("/v1/auth/logout", {
    method: "POST",
    headers: { ...bearer(second.token), ...UA },
  });

  const res = await svc.request("/v1/security-log?limit=50", { headers: bearer(user.token) });
  assert.equal(res.status, 200);
  const log = await res.json();
  assert.deepEqual(log.map((e: { type: string }) => e.type), [
    "session.signed_out",
    "session.signed_in",
    "profile.updated",
    "webhook.deleted",
    "webhook.secret_rotated",
    "webhook.updated",
    "webhook.created",
    "api_key.revoked",
    "api_key.regenerated",
    "api_key.updated",
    "api_key.whitelist_changed",
    "api_key.created",
    "session.sign_in_failed",
    "session.signed_in",
  ]);
  const byType = new Map(log.map((e: { type: string }) => [e.type, e]));
  // deno-lint-ignore no-explicit-any
  const entry = (type: string) => byType.get(type) as any;
  assert.equal(entry("session.sign_in_failed").ip, "198.51.100.7");
  assert.equal(entry("session.sign_in_failed").userAgent, "SecurityLogTest/1.0");
  assert.equal(entry("api_key.revoked").keyId, key.id);
  assert.equal(entry("api_key.revoked").ip, "203.0.113.10");
  assert.equal(entry("webhook.created").webhookId, hook.id);
  assert.equal(entry("webhook.created").keyId, undefined);
  for (const e of log) assert.match(e.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);

  const other = await signUp(svc);
  const theirs = await (await svc.request("/v1/security-log", {
    headers: bearer(other.token),
  })).json();
  assert.deepEqual(theirs.map((e: { type: string }) => e.type), ["session.signed_in"]);
});

Deno.test("the security log pages with cursors and needs a session", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  for (let i = 0; i < 4; i++) await createKey(svc, user.token);
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const res = await svc.request(`/v1/security-log?limit=2${query}`, {
      headers: bearer(user.token),
    });
    ids.push(...(await res.json()).map((e: { id: string }) => e.id));
    cursor = res.headers.get("X-Next-Cursor");
  } while (cursor);
  assert.equal(ids.length, 5, "four keys and the sign-in, each once");
  assert.deepEqual([...ids].sort().reverse(), ids, "newest first");

  const key = await createKey(svc, user.token);
  const refused = await svc.request("/v1/security-log", { headers: apiKey(key.value) });
  assert.equal(refused.status, 403);
  assert.equal((await refused.json()).code, "SESSION_REQUIRED");
  const bad = await svc.request("/v1/security-log?cursor=nope", { headers: bearer(user.token) });
  assert.equal(bad.status, 400);
});
