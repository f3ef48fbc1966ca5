/**
 * Matching (docs/contract.md section 17): a published task that an enabled alert matches sends
 * `task.matched` to the owner's endpoints, verified by a real receiver with `standardwebhooks`;
 * never for the owner's own tasks, never twice, nothing for a disabled alert; the matches
 * listing shows the tasks still published; an account's purge removes its alerts and index.
 */
import assert from "node:assert/strict";
import { alertCriteria } from "../../domain/alerts/alert.ts";
import { matchTask } from "../../kv/alerts/matching.ts";
import { bearer, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, workingService } from "../webhooks/webhook_fixtures.ts";
import { indexPlaces, postAlert } from "./alert_fixtures.ts";

const LYON = { coordinates: [4.8357, 45.764], type: "city", name: "Lyon", countryCode: "FR" };

Deno.test("a matching task reaches the alert's owner once, signed; own, unmatched and disabled never", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const owner = await signUp(svc, { firstName: "Owner" });
  const poster = await signUp(svc, { firstName: "Poster" });
  const hook = await addEndpoint(svc, owner.token, { url: receiver.url, events: ["task.matched"] });
  receiver.secrets.push(hook.secret);
  const paris = await postAlert(svc, owner.token, {
    filters: { search: "sink", cityName: "paris", minBudget: 50 },
  });
  const off = await postAlert(svc, owner.token, { filters: { countryCode: "FR" } });
  await svc.request(`/api/v1/alerts/${off.id}`, {
    method: "PATCH",
    headers: bearer(owner.token),
    json: { enabled: false },
  });

  const match = await postTask(svc, poster.token);
  await postTask(svc, poster.token, { budget: 20 }); // under minBudget
  await postTask(svc, poster.token, { location: LYON }); // elsewhere
  await postTask(svc, poster.token, { title: "Paint the fence" }); // other words
  await postTask(svc, owner.token); // the owner's own
  await svc.jobs.drain();
  await receiver.waitFor((r) => r.length >= 1);
  await svc.jobs.drain();

  assert.equal(receiver.received.length, 1);
  const [got] = receiver.received;
  assert.deepEqual(got.verifiedWith, [hook.secret]);
  assert.equal(got.event.type, "task.matched");
  assert.equal(got.event.data.alertId, paris.id);
  // The task as explore lists it.
  const explore = await svc.request("/api/v1/tasks/explore?cityName=Paris&search=sink");
  const listed = (await explore.json()).find((t: { id: string }) => t.id === match.id);
  assert.deepEqual(got.event.data.task, listed);

  // Run again, as after a lost lease: nothing more.
  await matchTask({ kv: svc.kv, now: svc.deps.now }, { taskId: match.id });
  await svc.jobs.drain();
  assert.equal(receiver.received.length, 1);

  const matches = await svc.request(`/api/v1/alerts/${paris.id}/matches`, {
    headers: bearer(owner.token),
  });
  assert.equal(matches.status, 200);
  assert.deepEqual((await matches.json()).map((t: { id: string }) => t.id), [match.id]);
  const offMatches = await svc.request(`/api/v1/alerts/${off.id}/matches`, {
    headers: bearer(owner.token),
  });
  assert.deepEqual(await offMatches.json(), []);
});

Deno.test("matches list the tasks still published, newest first, with cursor paging", async () => {
  await using svc = await workingService();
  const owner = await signUp(svc);
  const poster = await signUp(svc);
  const alert = await postAlert(svc, owner.token, { filters: { countryCode: "FR" } });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await postTask(svc, poster.token, { budget: 10 + i })).id);
  await svc.jobs.drain();
  const completed = await svc.request(`/api/v1/tasks/${ids[1]}`, {
    method: "PATCH",
    headers: bearer(poster.token),
    json: { status: "completed" },
  });
  assert.equal(completed.status, 200);
  await svc.request(`/api/v1/tasks/${ids[3]}`, { method: "DELETE", headers: bearer(poster.token) });
  const seen: string[] = [];
  let path = `/api/v1/alerts/${alert.id}/matches?limit=2`;
  for (let pages = 0; pages < 10; pages++) {
    const res = await svc.request(path, { headers: bearer(owner.token) });
    assert.equal(res.status, 200);
    seen.push(...(await res.json()).map((t: { id: string }) => t.id));
    const next = res.headers.get("X-Next-Cursor");
    if (!next) break;
    path = `/api/v1/alerts/${alert.id}/matches?limit=2&cursor=${encodeURIComponent(next)}`;
  }
  assert.deepEqual(seen, [ids[4], ids[2], ids[0]]);
  const bad = await svc.request(`/api/v1/alerts/${alert.id}/matches?cursor=nonsense`, {
    headers: bearer(owner.token),
  });
  assert.equal((await bad.json()).code, "INVALID_CURSOR");
});

Deno.test("an account's purge removes its alerts and their index entries; they match nothing after", async () => {
  await using svc = await workingService();
  const owner = await signUp(svc);
  const poster = await signUp(svc);
  const alerts = [
    await postAlert(svc, owner.token, { filters: { cityName: "Paris" } }),
    await postAlert(svc, owner.token, { filters: { search: "kitchen" } }),
    await postAlert(svc, owner.token, {
      filters: { latitude: 48.85, longitude: 2.35, radiusKm: 20 },
    }),
    await postAlert(svc, owner.token, { filters: { search: "go", payment: "Paid" } }),
  ];
  await postTask(svc, poster.token);
  await svc.jobs.drain();
  for (const a of alerts) assert.ok((await indexPlaces(svc.kv, a.id)).length > 0);
  const res = await svc.request(`/v1/users/${owner.id}`, {
    method: "DELETE",
    headers: bearer(owner.token),
  });
  assert.equal(res.status, 200);
  await svc.jobs.drain();
  for (const a of alerts) assert.deepEqual(await indexPlaces(svc.kv, a.id), []);
  for await (const entry of svc.kv.list({ prefix: ["alerts", owner.id] })) {
    assert.fail(`alert left: ${String(entry.key)}`);
  }
  assert.equal((await svc.kv.get(["alert_counts", owner.id])).value, null);
  for (const a of alerts) {
    for await (const entry of svc.kv.list({ prefix: ["alert_matches", a.id] })) {
      assert.fail(`match left: ${String(entry.key)}`);
    }
  }
});

// Pages keep each alert's criteria as explore normalized them at filing (docs/alerts.md), and the
// anchors it is filed under come from them too. A change to explore's normalization therefore
// leaves filed alerts matching by the old rule until they are filed again: this test is there to
// fail first, so that such a change comes with a new ALERT_INDEX_LAYOUT and its refiling.
Deno.test("filed criteria are explore's normalization as it was when they were filed", () => {
  assert.deepEqual(
    alertCriteria({
      search: "Piano MOVERS, déménagement",
      cityName: "  São Paulo ",
      payment: "Paid",
      minBudget: 50,
    }),
    {
      search: ["piano", "movers", "demenagement"],
      payment: "Paid",
      cityName: "sao paulo",
      minBudget: 50,
    },
  );
  assert.deepEqual(
    alertCriteria({
      latitude: 48.86,
      longitude: 2.35,
      radiusKm: 20,
      regionName: "Île-de-France",
      countryCode: "FR",
    }),
    {
      search: [],
      geo: { lon: 2.35, lat: 48.86, radiusKm: 20 },
      regionName: "ile-de-france",
      countryCode: "FR",
    },
  );
});
