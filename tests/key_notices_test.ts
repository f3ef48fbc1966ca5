/**
 * API key expiry notices: `api_key.expiring` 7 days and 1 day before, `api_key.expired` at the
 * expiry, each raised once and only for a key still live. The queue messages are enqueued with
 * the key; here they are handed to the handler at their due time instead of waiting days.
 */
import assert from "node:assert/strict";
import { keyNotice } from "../kv/key_notices.ts";
import type { KeyNotice } from "../kv/queue.ts";
import { bearer, createKey, signUp } from "./helpers.ts";
import { startReceiver } from "./webhook_receiver.ts";
import { addEndpoint, type WorkingService, workingService } from "./webhook_fixtures.ts";

const DAY = 86_400_000;

function notice(
  svc: WorkingService,
  key: { userId: string; keyId: string; expiresAt: string },
  kind: KeyNotice,
  lateBy = 1_000,
) {
  const before = { expiring_7d: 7 * DAY, expiring_1d: DAY, expired: 0 }[kind];
  const dueAt = Date.parse(key.expiresAt) - before;
  return keyNotice(
    { kv: svc.kv, now: () => dueAt + lateBy, webhooks: svc.policy },
    { kind: "api_key_notice", userId: key.userId, keyId: key.keyId, notice: kind, dueAt },
  );
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
  const ref = { userId: user.id, keyId: key.id, expiresAt: key.metadata.expiresAt };
  await notice(svc, ref, "expiring_7d");
  await notice(svc, ref, "expiring_7d"); // a redelivered message
  await notice(svc, ref, "expiring_1d");
  await notice(svc, ref, "expired");
  await receiver.waitFor((r) => r.length >= 3);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Deliveries run concurrently: their order of arrival is not the events' order.
  assert.deepEqual(receiver.received.map((r) => r.event.type).sort(), [
    "api_key.expired",
    "api_key.expiring",
    "api_key.expiring",
  ]);
  assert.ok(receiver.received.every((r) => r.event.data.id === key.id && r.verifiedWith.length));
  const log = await (await svc.request("/v1/security-log", { headers: bearer(user.token) }))
    .json();
  const expired = log.find((e: { type: string }) => e.type === "api_key.expired");
  assert.equal(expired.keyId, key.id);
  assert.equal(expired.ip, null, "the service's own entry");
});

Deno.test("no notice for a revoked key, nor before its time", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const user = await signUp(svc);
  await addEndpoint(svc, user.token, { url: receiver.url, events: ["*"] });
  const key = await createKey(svc, user.token, { expiresInDays: 30 });
  await receiver.waitFor((r) => r.length >= 1); // api_key.created
  const ref = { userId: user.id, keyId: key.id, expiresAt: key.metadata.expiresAt };
  await notice(svc, ref, "expiring_7d", -60_000); // early: it waits again in the queue
  await svc.request(`/v1/keys/${key.id}`, { method: "DELETE", headers: bearer(user.token) });
  await notice(svc, ref, "expired");
  await receiver.waitFor((r) => r.length >= 2); // api_key.revoked
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(receiver.received.map((r) => r.event.type).sort(), [
    "api_key.created",
    "api_key.revoked",
  ]);
});
