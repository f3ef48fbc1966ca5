/**
 * Security review 4, finding 5 (the low ones): a purged account's record keeps no personal data;
 * revoked keys leave the account's keys (the hot paths list live ones only) and expire; the
 * dashboard refuses framing in older browsers too; a plain-http KV Connect URL to another host is
 * refused at start-up.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { REVOKED_KEY_RETENTION_MS } from "../../domain/api_key.ts";
import { parseSettings } from "../../domain/settings.ts";
import { apiKeys, users } from "../../kv/keyspace.ts";
import { bearer, createKey, openTestKv, serveApp, signUp } from "../helpers.ts";
import { workingService } from "../webhooks/webhook_fixtures.ts";
import { bareEnv, mainCommand } from "../processes/main_process.ts";

Deno.test("a deleted account's purge leaves no email, name or password hash in its record", async () => {
  await using svc = await workingService();
  const ada = await signUp(svc, { firstName: "Ada", email: "ada.purged@example.com" });
  const res = await svc.request(`/v1/users/${ada.id}`, {
    method: "DELETE",
    headers: bearer(ada.token),
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  await svc.jobs.drain();
  const record = (await svc.kv.get<Record<string, unknown>>(users.record(ada.id))).value!;
  assert.ok(record.deletedAt, "the record stays, marked deleted");
  assert.equal(record.id, ada.id);
  const text = JSON.stringify(record);
  assert.ok(!text.includes("ada.purged"), text);
  assert.ok(!text.includes("Ada"), text);
  assert.equal(record.passwordHash, "");
  // The email is free again, and the old password opens nothing.
  const login = await svc.request("/v1/auth/token", {
    method: "POST",
    json: { email: "ada.purged@example.com", password: "correct horse battery" },
  });
  assert.equal(login.status, 401);
  await login.body?.cancel();
  const again = await signUp(svc, { email: "ada.purged@example.com" });
  assert.notEqual(again.id, ada.id);
});

Deno.test("revoked keys leave the account's keys, which creation and GET /keys list, and expire", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kv = await openTestKv(path);
  try {
    await using svc = await workingService({ kv });
    const user = await signUp(svc);
    const live = await createKey(svc, user.token, { scopes: ["tasks:read"] });
    const revoked: string[] = [];
    for (let i = 0; i < 5; i++) {
      const key = await createKey(svc, user.token, { scopes: ["tasks:read"] });
      const res = await svc.request(`/v1/keys/${key.id}`, {
        method: "DELETE",
        headers: bearer(user.token),
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      revoked.push(key.id);
    }
    const listed = await Array.fromAsync(kv.list({ prefix: apiKeys.byUserPrefix(user.id) }));
    assert.deepEqual(listed.map((e) => e.key.at(-1)), [live.id], "only the live key is listed");
    const keys = await svc.request("/v1/keys", { headers: bearer(user.token) });
    assert.deepEqual((await keys.json()).map((k: { id: string }) => k.id), [live.id]);
    for (const id of revoked) {
      assert.ok((await kv.get(apiKeys.revoked(user.id, id))).value, "kept for the retention");
    }
    const db = new DatabaseSync(path, { readOnly: true });
    const rows = db.prepare("SELECT k, expiration_ms FROM kv").all() as {
      k: Uint8Array;
      expiration_ms: number;
    }[];
    db.close();
    const prefix = new TextEncoder().encode("api_keys_revoked");
    const expiries = rows.filter((r) =>
      prefix.every((b, i) => r.k[i + 1] === b) && r.k[prefix.length + 1] === 0
    ).map((r) => r.expiration_ms);
    assert.equal(expiries.length, 5);
    const now = Date.now();
    for (const at of expiries) {
      assert.ok(at > now + REVOKED_KEY_RETENTION_MS - 3_600_000, `expires at ${at}`);
      assert.ok(at <= now + REVOKED_KEY_RETENTION_MS, `expires at ${at}`);
    }
  } finally {
    kv.close();
    await Deno.remove(path).catch(() => {});
  }
});

Deno.test("/dashboard sends X-Frame-Options: DENY beside frame-ancestors 'none'", async () => {
  await using server = await serveApp();
  const res = await fetch(`${server.base}/dashboard`);
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(res.headers.get("X-Frame-Options"), "DENY");
  assert.match(res.headers.get("Content-Security-Policy") ?? "", /frame-ancestors 'none'/);
});

Deno.test("KV_PATH: a plain-http KV Connect URL is refused unless its host is loopback", async () => {
  const token = { DENO_KV_ACCESS_TOKEN: "x".repeat(32) };
  for (const url of ["http://kv.example.com:4512", "http://10.0.0.5", "http://[2001:db8::1]:80"]) {
    assert.throws(
      () => parseSettings({ KV_PATH: url, ...token }),
      /KV_PATH: a KV Connect URL must be https unless its host is loopback/,
      url,
    );
  }
  for (
    const url of [
      "https://kv.example.com",
      "http://127.0.0.1:4512",
      "http://[::1]:4512",
      "http://localhost:4512",
    ]
  ) {
    assert.equal(parseSettings({ KV_PATH: url, ...token }).KV_PATH, url);
  }
  // At start-up: a clear error naming the setting, and nothing served.
  const cwd = await Deno.makeTempDir();
  try {
    const env = bareEnv({ KV_PATH: "http://kv.example.com:4512", ...token });
    const { code, stdout, stderr } = await mainCommand(cwd, env).output();
    assert.equal(code, 1);
    assert.match(new TextDecoder().decode(stderr), /KV_PATH: a KV Connect URL must be https/);
    assert.equal(new TextDecoder().decode(stdout), "");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
