/**
 * API key expiry notices: `api_key.expiring` 7 days and 1 day before, `api_key.expired` at the
 * expiry, each raised once and only for a key still live. Their jobs are written with the key,
 * each due at its time: here the injected clock is moved there and the runner drained.
 */
import assert from "node:assert/strict";
import { keyNotice } from "../../kv/api_keys/key_notices.ts";
import { jobs } from "../../kv/keyspace.ts";
import type { JobRecord, KeyNotice } from "../../kv/jobs/types.ts";
import { bearer, createKey, signUp } from "../helpers.ts";
import { startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, type WorkingService, workingService } from "../webhooks/webhook_fixtures.ts";

const DAY = 86_400_000;
const BEFORE: Record<KeyNotice, number> = { expiring_7d: 7 * DAY, expiring_1d: DAY, expired: 0 };

/** Moves the service's clock to `kind`'s due time (plus `lateBy`) and runs what is due. */
async function reach(svc: WorkingService, expiresAt: string, kind: KeyNotice, lateBy = 1_000) {
  const at = Date.parse(expiresAt) - BEFORE[kind] + lateBy;
  svc.deps.now = () => at;
  await svc.jobs.drain();
}

async function noticeJobs(kv: Deno.Kv) {
  const found: { due: number; notice: string }[] = [];
  for await (const entry of kv.list<JobRecord>({ prefix: jobs.start() })) {
    const { payload } = entry.value;
    if (payload.kind === "api_key_notice") {
      found.push({ due: entry.key[1] as number, notice: payload.notice });
    }
  }
  return found;
}

Deno.test("a key's expiry raises api_key.expiring twice and api_key.expired once each", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, {
    url: receiver.url,
    events: ["api_key.expiring", "api_key.expired"],
  });
  receiver.secrets.push(hook.secret);
  const key = await createKey(svc, user.token, { expiresInDays: 30 });
  const { expiresAt } = key.metadata;
  assert.deepEqual(await noticeJobs(svc.kv), [
    { due: Date.parse(expiresAt) - 7 * DAY, notice: "expiring_7d" },
    { due: Date.parse(expiresAt) - DAY, notice: "expiring_1d" },
    { due: Date.parse(expiresAt), notice: "expired" },
  ], "one job per notice, due at its time (no 30-day cap)");
  await reach(svc, expiresAt, "expiring_7d");
  await keyNotice( // the same job run again does nothing twice
    { kv: svc.kv, now: svc.deps.now, webhooks: svc.policy },
    {
      kind: "api_key_notice",
      userId: user.id,
      keyId: key.id,
      notice: "expiring_7d",
      dueAt: Date.parse(expiresAt) - 7 * DAY,
    },
  );
  await reach(svc, expiresAt, "expiring_1d");
  await reach(svc, expiresAt, "expired");
  await svc.jobs.drain();
  assert.deepEqual(await noticeJobs(svc.kv), [], "every notice's job ran and is gone");
  // Deliveries run concurrently: their order of arrival is not the events' order.
  assert.deepEqual(receiver.received.map((r) => r.event.type).sort(), [
    "api_key.expired",
    "api_key.expiring",
    "api_key.expiring",
  ]);
  // Signed at the moved clock's time, which the receiver's library refuses as too far ahead.
  assert.ok(receiver.received.every((r) => r.event.data.id === key.id));
  svc.deps.now = Date.now;
  const log = await (await svc.request("/v1/security-log", { headers: bearer(user.token) }))
    .json();
  const expired = log.find((e: { type: string }) => e.type === "api_key.expired");
  assert.equal(expired.keyId, key.id);
  assert.equal(expired.ip, null, "the service's own entry");
});

Deno.test("a key expiring in a year has its expiry notice's job due a year ahead", async () => {
  await using svc = await workingService();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { expiresInDays: 365 });
  const expired = (await noticeJobs(svc.kv)).find((j) => j.notice === "expired");
  assert.equal(expired?.due, Date.parse(key.metadata.expiresAt));
});

Deno.test("no notice for a revoked key, nor before its time", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const user = await signUp(svc);
  await addEndpoint(svc, user.token, { url: receiver.url, events: ["*"] });
  const key = await createKey(svc, user.token, { expiresInDays: 30 });
  const { expiresAt } = key.metadata;
  await receiver.waitFor((r) => r.length >= 1); // api_key.created
  await reach(svc, expiresAt, "expiring_7d", -60_000); // a minute early: nothing is due
  assert.equal(receiver.received.length, 1);
  svc.deps.now = Date.now;
  await svc.request(`/v1/keys/${key.id}`, { method: "DELETE", headers: bearer(user.token) });
  await reach(svc, expiresAt, "expired");
  await svc.jobs.drain();
  assert.deepEqual(receiver.received.map((r) => r.event.type).sort(), [
    "api_key.created",
    "api_key.revoked",
  ]);
});
