/**
 * Expired keys leave the account's live keys, which key creation counts: the expiry's job moves
 * the record to the expired keys (kept 30 days after the expiry), where GET /keys still shows it
 * as expired, its value still answers "expired at", and revoking it moves it on to the revoked
 * keys. A record left among the live keys a day past its expiry is moved by the next creation.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { EXPIRED_KEY_RETENTION_MS } from "../../domain/api_key.ts";
import { apiKeys } from "../../kv/keyspace.ts";
import { apiKey, bearer, createKey, openTestKv, signUp } from "../helpers.ts";
import { workingService } from "../webhooks/webhook_fixtures.ts";

const DAY = 86_400_000;
// Sessions outlast the moved clock.
const SETTINGS = { SESSION_TTL_HOURS: "2000" };

async function liveIds(kv: Deno.Kv, userId: string) {
  const listed = await Array.fromAsync(kv.list({ prefix: apiKeys.byUserPrefix(userId) }));
  return listed.map((e) => e.key.at(-1));
}

/** When KV drops the rows of `table` (the first key part), by the SQLite file. */
function expiries(path: string, table: string): number[] {
  const db = new DatabaseSync(path, { readOnly: true });
  const rows = db.prepare("SELECT k, expiration_ms FROM kv").all() as {
    k: Uint8Array;
    expiration_ms: number;
  }[];
  db.close();
  const prefix = new TextEncoder().encode(table);
  return rows.filter((r) =>
    prefix.every((b, i) => r.k[i + 1] === b) && r.k[prefix.length + 1] === 0
  )
    .map((r) => r.expiration_ms);
}

Deno.test("an expired key leaves the account's live keys at its expiry, still listed and answered as expired", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kv = await openTestKv(path);
  try {
    await using svc = await workingService({ kv, settings: SETTINGS });
    const user = await signUp(svc);
    const short = await createKey(svc, user.token, { expiresInDays: 1 });
    const long = await createKey(svc, user.token, { expiresInDays: 30 });
    const expiresAt = Date.parse(short.metadata.expiresAt);
    svc.deps.now = () => expiresAt + 1_000;
    await svc.jobs.drain();

    assert.deepEqual(await liveIds(kv, user.id), [long.id], "only the live key among them");
    assert.ok((await kv.get(apiKeys.expired(user.id, short.id))).value, "kept with the expired");
    const listed = await (await svc.request("/v1/keys", { headers: bearer(user.token) })).json();
    assert.deepEqual(
      listed.map((k: { id: string; status: string }) => [k.id, k.status]).sort(),
      [[long.id, "active"], [short.id, "expired"]].sort(),
    );
    const refused = await svc.request("/api/v1/tasks", { headers: apiKey(short.value) });
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).expiredAt, short.metadata.expiresAt, "still 'expired at'");

    // KV drops the record, and its value's digest entry, 30 days after the expiry (wall clock).
    const [record] = expiries(path, "api_keys_expired");
    assert.ok(Math.abs(record - (expiresAt + EXPIRED_KEY_RETENTION_MS)) < 60_000, `${record}`);
    const digests = expiries(path, "api_keys_by_digest").filter((at) => at > 0);
    assert.equal(digests.length, 1, "the expired value's entry expires; the live one's does not");

    const revoked = await svc.request(`/v1/keys/${short.id}`, {
      method: "DELETE",
      headers: bearer(user.token),
    });
    assert.equal(revoked.status, 200);
    await revoked.body?.cancel();
    assert.equal((await kv.get(apiKeys.expired(user.id, short.id))).value, null);
    assert.ok((await kv.get(apiKeys.revoked(user.id, short.id))).value, "moved on to the revoked");
  } finally {
    kv.close();
    await Deno.remove(path).catch(() => {});
  }
});

Deno.test("an expired record still among the live keys a day on is moved by the next creation, and its notice still raised", async () => {
  await using svc = await workingService({ settings: SETTINGS });
  const user = await signUp(svc);
  const old = await createKey(svc, user.token, { expiresInDays: 1 });
  const expiresAt = Date.parse(old.metadata.expiresAt);
  // As a version that did not move expired records left it: the job not yet run.
  svc.deps.now = () => expiresAt + 2 * DAY;
  const fresh = await createKey(svc, user.token, { expiresInDays: 5 });
  assert.deepEqual(await liveIds(svc.kv, user.id), [fresh.id]);
  assert.ok((await svc.kv.get(apiKeys.expired(user.id, old.id))).value);
  await svc.jobs.drain();
  const log = await (await svc.request("/v1/security-log", { headers: bearer(user.token) }))
    .json();
  assert.ok(
    log.some((e: { type: string; keyId: string }) =>
      e.type === "api_key.expired" && e.keyId === old.id
    ),
    "the expiry's notice found the moved record",
  );
});
