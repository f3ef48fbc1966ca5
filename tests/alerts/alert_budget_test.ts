/**
 * Security review 4, finding 2: alerts as an amplifier. An alert must narrow by place or word
 * (400 ALERT_TOO_BROAD); what one task's matching makes an account send is held to a delivery
 * budget that delays, never drops, and says so in the security log; match records expire.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { MATCH_RETENTION_MS } from "../../kv/alerts/match_parts.ts";
import { bearer, openTestKv, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, workingService } from "../webhooks/webhook_fixtures.ts";
import { postAlert } from "./alert_fixtures.ts";

Deno.test("an alert that narrows only by minBudget or payment gets 400 ALERT_TOO_BROAD, at creation and PATCH", async () => {
  await using svc = await workingService();
  const user = await signUp(svc);
  const post = (filters: unknown) =>
    svc.request("/api/v1/alerts", {
      method: "POST",
      headers: bearer(user.token),
      json: { name: "x", filters },
    });
  for (
    const filters of [{ minBudget: 0 }, { payment: "Paid" }, { payment: "Paid", minBudget: 5 }]
  ) {
    const res = await post(filters);
    assert.equal(res.status, 400, JSON.stringify(filters));
    const body = await res.json();
    assert.equal(body.code, "ALERT_TOO_BROAD", JSON.stringify(filters));
    assert.match(body.detail, /place or word/);
  }
  for (
    const filters of [
      { search: "piano", minBudget: 0 },
      { cityName: "Paris", payment: "Paid" },
      { regionName: "Bretagne" },
      { countryCode: "FR", minBudget: 10 },
      { latitude: 48.85, longitude: 2.35, radiusKm: 5, minBudget: 0 },
    ]
  ) {
    const res = await post(filters);
    assert.equal(res.status, 201, JSON.stringify(filters));
    await res.body?.cancel();
  }
  const alert = await postAlert(svc, user.token, { filters: { cityName: "Paris" } });
  const patch = await svc.request(`/api/v1/alerts/${alert.id}`, {
    method: "PATCH",
    headers: bearer(user.token),
    json: { filters: { minBudget: 0 } },
  });
  assert.equal(patch.status, 400);
  assert.equal((await patch.json()).code, "ALERT_TOO_BROAD");
  const kept = await svc.request(`/api/v1/alerts/${alert.id}`, { headers: bearer(user.token) });
  assert.deepEqual((await kept.json()).filters, { cityName: "Paris" });
});

Deno.test("one task's matches wait for the account's delivery budget, none dropped, and the log says so", async () => {
  await using svc = await workingService({ settings: { ALERT_DELIVERIES_PER_MINUTE: "3" } });
  let offset = 0;
  svc.deps.now = () => Date.now() + offset;
  await using receiver = startReceiver();
  const owner = await signUp(svc);
  const poster = await signUp(svc);
  for (const path of ["a", "b"]) {
    const hook = await addEndpoint(svc, owner.token, {
      url: `${receiver.url}/${path}`,
      events: ["task.matched"],
    });
    receiver.secrets.push(hook.secret);
  }
  // Three alerts the default task (a sink in Paris) matches: six deliveries, a budget of three.
  for (const filters of [{ cityName: "Paris" }, { search: "sink" }, { countryCode: "FR" }]) {
    await postAlert(svc, owner.token, { filters });
  }
  await postTask(svc, poster.token);
  await svc.jobs.drain();
  assert.equal(receiver.received.length, 3, "the budget's three, the rest waiting");

  const log = await svc.request("/v1/security-log", { headers: bearer(owner.token) });
  const delayed = (await log.json()).filter((e: { type: string }) =>
    e.type === "webhook.deliveries_delayed"
  );
  assert.equal(delayed.length, 1, "one entry a window, however many events wait");
  assert.match(delayed[0].reason, /3 task\.matched deliveries/);

  offset = 2 * 60_000;
  await svc.jobs.drain();
  assert.equal(receiver.received.length, 6, "delayed, never dropped");
  assert.equal(new Set(receiver.received.map((r) => `${r.id} ${r.signature}`)).size, 6);
  assert.ok(receiver.received.every((r) => r.verifiedWith.length === 1));
  const alertIds = new Set(receiver.received.map((r) => r.event.data.alertId));
  assert.equal(alertIds.size, 3, "each alert's match reached both endpoints");
});

Deno.test("match records are written to expire after the documented retention", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kv = await openTestKv(path);
  try {
    await using svc = await workingService({ kv });
    const owner = await signUp(svc);
    const poster = await signUp(svc);
    const alert = await postAlert(svc, owner.token, { filters: { cityName: "Paris" } });
    const before = Date.now();
    await postTask(svc, poster.token);
    await svc.jobs.drain();
    const matches = await svc.request(`/api/v1/alerts/${alert.id}/matches`, {
      headers: bearer(owner.token),
    });
    assert.equal((await matches.json()).length, 1);
    // The store's own record of each key's expiry (Deno KV's SQLite table).
    const db = new DatabaseSync(path, { readOnly: true });
    const prefix = new TextEncoder().encode("alert_matches");
    const rows = db.prepare("SELECT k, expiration_ms FROM kv").all() as {
      k: Uint8Array;
      expiration_ms: number;
    }[];
    db.close();
    const expiries = rows.filter((r) => prefix.every((b, i) => r.k[i + 1] === b))
      .map((r) => r.expiration_ms);
    assert.equal(expiries.length, 1);
    assert.ok(
      expiries[0] >= before + MATCH_RETENTION_MS && expiries[0] <= Date.now() + MATCH_RETENTION_MS,
      `expires at ${expiries[0]}`,
    );
  } finally {
    kv.close();
    await Deno.remove(path).catch(() => {});
  }
});
