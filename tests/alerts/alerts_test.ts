/**
 * Task alerts (docs/contract.md section 17): CRUD with explore's validation, the limit of 20
 * (exact under concurrency), scopes, and where the index files an alert as it changes.
 */
import assert from "node:assert/strict";
import { MAX_ALERTS } from "../../domain/alerts/alert.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { indexPlaces, postAlert } from "./alert_fixtures.ts";

Deno.test("an alert is created, listed, read, changed and deleted", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const res = await svc.request("/api/v1/alerts", {
    method: "POST",
    headers: bearer(user.token),
    json: { name: "Pianos in Paris", filters: { search: "piano", cityName: "Paris" } },
  });
  assert.equal(res.status, 201);
  const alert = await res.json();
  assert.equal(res.headers.get("Location"), `/api/v1/alerts/${alert.id}`);
  assert.deepEqual(Object.keys(alert).sort(), [
    "createdAt",
    "enabled",
    "filters",
    "id",
    "name",
    "updatedAt",
  ]);
  assert.deepEqual(alert.filters, { search: "piano", cityName: "Paris" });
  assert.equal(alert.enabled, true);
  assert.match(alert.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const list = await (await svc.request("/v1/alerts", { headers: bearer(user.token) })).json();
  assert.deepEqual(list.map((a: { id: string }) => a.id), [alert.id]);
  const one = await svc.request(`/api/v1/alerts/${alert.id}`, { headers: bearer(user.token) });
  assert.deepEqual(await one.json(), alert);

  const patched = await svc.request(`/api/v1/alerts/${alert.id}`, {
    method: "PATCH",
    headers: bearer(user.token),
    json: { name: "Anything paid", filters: { search: "dog", payment: "Paid" }, enabled: false },
  });
  assert.equal(patched.status, 200);
  const changed = await patched.json();
  assert.equal(changed.name, "Anything paid");
  assert.deepEqual(changed.filters, { search: "dog", payment: "Paid" });
  assert.equal(changed.enabled, false);

  const deleted = await svc.request(`/api/v1/alerts/${alert.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  assert.equal(deleted.status, 200);
  assert.deepEqual(await deleted.json(), { message: "Alert deleted" });
  const gone = await svc.request(`/api/v1/alerts/${alert.id}`, { headers: bearer(user.token) });
  assert.equal(gone.status, 404);
  assert.deepEqual(await indexPlaces(svc.kv, alert.id), []);
});

Deno.test("another account's alert is not found, for every method", async () => {
  await using svc = await setup();
  const owner = await signUp(svc);
  const other = await signUp(svc);
  const alert = await postAlert(svc, owner.token, { filters: { countryCode: "FR" } });
  for (
    const [method, path, json] of [
      ["GET", "", undefined],
      ["PATCH", "", { name: "mine" }],
      ["DELETE", "", undefined],
      ["GET", "/matches", undefined],
    ] as const
  ) {
    const res = await svc.request(`/api/v1/alerts/${alert.id}${path}`, {
      method,
      headers: bearer(other.token),
      json,
    });
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.equal((await res.json()).code, "NOT_FOUND");
  }
  const list = await svc.request("/api/v1/alerts", { headers: bearer(other.token) });
  assert.deepEqual(await list.json(), []);
});

Deno.test("filters take explore's rules and errors, strictly, and at least one filter", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const post = (filters: unknown, extra: Record<string, unknown> = {}) =>
    svc.request("/api/v1/alerts", {
      method: "POST",
      headers: bearer(user.token),
      json: { name: "x", filters, ...extra },
    });
  const cases: [unknown, string, string][] = [
    [{ latitude: 48.8, longitude: 2.3 }, "VALIDATION_ERROR", "filters.radiusKm"],
    [{ latitude: 48.8, longitude: 2.3, radiusKm: 501 }, "VALIDATION_ERROR", "filters.radiusKm"],
    [{ latitude: 91, longitude: 2.3, radiusKm: 5 }, "VALIDATION_ERROR", "filters.latitude"],
    [{ payment: "Free" }, "VALIDATION_ERROR", "filters.payment"],
    [{ countryCode: "FRA" }, "VALIDATION_ERROR", "filters.countryCode"],
    [{ cityName: "  " }, "VALIDATION_ERROR", "filters.cityName"],
    [{ minBudget: -1 }, "VALIDATION_ERROR", "filters.minBudget"],
    [{}, "VALIDATION_ERROR", "filters"],
    [{ search: "  " }, "VALIDATION_ERROR", "filters"],
    [{ cityName: "Paris", hasSpots: "true" }, "UNKNOWN_PARAMETER", "filters.hasSpots"],
    [{ cityName: "Paris", lat: 48.8 }, "UNKNOWN_PARAMETER", "filters.lat"],
  ];
  for (const [filters, code, path] of cases) {
    const res = await post(filters);
    assert.equal(res.status, 400, JSON.stringify(filters));
    const body = await res.json();
    assert.equal(body.code, code, JSON.stringify(filters));
    assert.ok(
      body.errors.some((e: { path: string }) => e.path === path),
      `${JSON.stringify(filters)}: ${JSON.stringify(body.errors)}`,
    );
  }
  const unknown = await post({ cityName: "Paris" }, { colour: "red" });
  assert.equal((await unknown.json()).code, "UNKNOWN_PARAMETER");
  // The geo rule's words are explore's own.
  const explore = await svc.request("/api/v1/tasks/explore?latitude=48.8&longitude=2.3");
  const alert = await post({ latitude: 48.8, longitude: 2.3 });
  const message = (b: { errors: { path: string; message: string }[] }, path: string) =>
    b.errors.find((e) => e.path.endsWith(path))?.message;
  assert.equal(message(await alert.json(), "radiusKm"), message(await explore.json(), "radiusKm"));
  // minBudget and payment narrow, but not alone (tests/alerts/alert_budget_test.ts).
  assert.equal((await post({ cityName: "Paris", minBudget: 100 })).status, 201);
});

Deno.test("the 21st alert gets 409 ALERT_LIMIT, and concurrent creations never pass 20", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const create = () =>
    svc.request("/api/v1/alerts", {
      method: "POST",
      headers: bearer(user.token),
      json: { name: "a", filters: { search: "garden" } },
    });
  const statuses = await Promise.all(Array.from({ length: 30 }, create));
  assert.equal(statuses.filter((r) => r.status === 201).length, MAX_ALERTS);
  const refused = statuses.filter((r) => r.status === 409);
  assert.equal(refused.length, 10);
  assert.equal((await refused[0].json()).code, "ALERT_LIMIT");
  for (const r of statuses) if (!r.bodyUsed) await r.body?.cancel();
  const list = await (await svc.request("/api/v1/alerts", { headers: bearer(user.token) })).json();
  assert.equal(list.length, MAX_ALERTS);
  // A deletion frees a place.
  await svc.request(`/api/v1/alerts/${list[0].id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  const again = await create();
  assert.equal(again.status, 201);
  await again.body?.cancel();
  const over = await create();
  assert.equal(over.status, 409);
  await over.body?.cancel();
});

Deno.test("alerts:read lists and reads, alerts:write changes; other keys get 403", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const alert = await postAlert(svc, user.token, { filters: { countryCode: "DE" } });
  const reader = await createKey(svc, user.token, { scopes: ["alerts:read"] });
  const writer = await createKey(svc, user.token, { scopes: ["alerts:write"] });
  const neither = await createKey(svc, user.token, { scopes: ["tasks:read"] });
  const call = (key: string, method: string, path = "", json?: unknown) =>
    svc.request(`/api/v1/alerts${path}`, { method, headers: apiKey(key), json });
  assert.equal((await call(reader.value, "GET")).status, 200);
  assert.equal((await call(reader.value, "GET", `/${alert.id}`)).status, 200);
  assert.equal((await call(reader.value, "GET", `/${alert.id}/matches`)).status, 200);
  const refused = await call(reader.value, "POST", "", {
    name: "b",
    filters: { cityName: "Paris", minBudget: 5 },
  });
  assert.equal(refused.status, 403);
  const body = await refused.json();
  assert.equal(body.code, "SCOPE_INSUFFICIENT");
  assert.equal(body.scope, "alerts:write");
  assert.equal((await call(writer.value, "GET")).status, 403);
  const made = await call(writer.value, "POST", "", {
    name: "b",
    filters: { cityName: "Paris", minBudget: 5 },
  });
  assert.equal(made.status, 201);
  await made.body?.cancel();
  assert.equal(
    (await call(writer.value, "PATCH", `/${alert.id}`, { enabled: false })).status,
    200,
  );
  assert.equal((await call(neither.value, "GET")).status, 403);
  assert.equal((await call(neither.value, "DELETE", `/${alert.id}`)).status, 403);
});

Deno.test("editing an alert's filters moves its index entries; switching it off removes them", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const alert = await postAlert(svc, user.token, { filters: { cityName: "Saint-Étienne" } });
  assert.deepEqual(await indexPlaces(svc.kv, alert.id), ["n/saint-etienne"]);
  const patch = (json: unknown) =>
    svc.request(`/api/v1/alerts/${alert.id}`, {
      method: "PATCH",
      headers: bearer(user.token),
      json,
    });
  assert.equal((await patch({ filters: { search: "piano movers" } })).status, 200);
  assert.deepEqual(await indexPlaces(svc.kv, alert.id), ["w/mov"]);
  assert.equal((await patch({ filters: { countryCode: "fr", payment: "Paid" } })).status, 200);
  assert.deepEqual(await indexPlaces(svc.kv, alert.id), ["c/FR"]);
  assert.equal(
    (await patch({ filters: { latitude: 48.85, longitude: 2.35, radiusKm: 5 } })).status,
    200,
  );
  const geo = await indexPlaces(svc.kv, alert.id);
  assert.ok(geo.length >= 4 && geo.every((p) => p.startsWith("g/")), geo.join());
  assert.equal((await patch({ enabled: false })).status, 200);
  assert.deepEqual(await indexPlaces(svc.kv, alert.id), []);
  assert.equal(
    (await patch({ enabled: true, filters: { search: "go", payment: "Pro-bono" } })).status,
    200,
  );
  assert.deepEqual(await indexPlaces(svc.kv, alert.id), ["w/*"]);
});
