/**
 * Unknown body members and query parameters are refused (400 UNKNOWN_PARAMETER), each named with
 * the known name closest to it, on every endpoint: a misspelt field fails loudly instead of
 * being dropped.
 */
import assert from "node:assert/strict";
import { bearer, setup, signUp } from "../helpers.ts";

interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

const PARIS = { type: "city", name: "Paris", coordinates: [2.35, 48.86], countryCode: "FR" };
const TASK = {
  title: "Walk the dog",
  description: "Twice around the park",
  budget: 20,
  currency: "EUR",
  location: PARIS,
  requirement: "Likes dogs",
};

Deno.test("unknown body members and query parameters are refused with the name they meant", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const created = await svc.request("/api/v1/tasks", {
    method: "POST",
    headers: bearer(user.token),
    json: TASK,
  });
  assert.equal(created.status, 201, await created.text());

  await t.step("explore with lat/lng/radius answers 400 naming each, lat → latitude", async () => {
    const res = await svc.request("/api/v1/tasks/explore?lat=48.86&lng=2.35&radius=10");
    assert.equal(res.status, 400);
    const body: Problem = await res.json();
    assert.equal(body.code, "UNKNOWN_PARAMETER");
    assert.deepEqual(body.errors, [
      { path: "lat", message: 'is not a known parameter; did you mean "latitude"?' },
      { path: "lng", message: 'is not a known parameter; did you mean "longitude"?' },
      { path: "radius", message: 'is not a known parameter; did you mean "radiusKm"?' },
    ]);
    assert.match(body.detail, /lat \(did you mean latitude\?\)/);
  });

  await t.step(
    "maxpeople on create answers 400 suggesting maxPeople, and creates nothing",
    async () => {
      const before = await svc.request("/api/v1/tasks", { headers: bearer(user.token) });
      const res = await svc.request("/api/v1/tasks", {
        method: "POST",
        headers: bearer(user.token),
        json: { ...TASK, maxpeople: 3 },
      });
      assert.equal(res.status, 400);
      const body: Problem = await res.json();
      assert.equal(body.code, "UNKNOWN_PARAMETER");
      assert.deepEqual(body.errors, [
        { path: "maxpeople", message: 'is not a known parameter; did you mean "maxPeople"?' },
      ]);
      const after = await svc.request("/api/v1/tasks", { headers: bearer(user.token) });
      assert.deepEqual(await after.json(), await before.json());
    },
  );

  await t.step("a nested unknown member is named by its path, against its own object", async () => {
    const res = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: bearer(user.token),
      json: { ...TASK, location: { ...PARIS, radius: 5 } },
    });
    assert.equal(res.status, 400);
    const body: Problem = await res.json();
    assert.equal(body.code, "UNKNOWN_PARAMETER");
    assert.deepEqual(body.errors, [
      { path: "location.radius", message: 'is not a known parameter; did you mean "radiusKm"?' },
    ]);
  });

  await t.step("nothing close: the member is named without a guess", async () => {
    const res = await svc.request("/api/v1/tasks/explore?zzz=1");
    const body: Problem = await res.json();
    assert.equal(body.code, "UNKNOWN_PARAMETER");
    assert.deepEqual(body.errors, [{ path: "zzz", message: "is not a known parameter" }]);
  });

  await t.step(
    "the other problems of the request are listed after the unknown members",
    async () => {
      const res = await svc.request("/api/v1/tasks", {
        method: "POST",
        headers: bearer(user.token),
        json: { ...TASK, budget: -1, Title: "x" },
      });
      const body: Problem = await res.json();
      assert.equal(body.code, "UNKNOWN_PARAMETER");
      assert.deepEqual(body.errors?.map((e) => e.path), ["Title", "budget"]);
      assert.match(body.errors![0].message, /did you mean "title"\?/);
    },
  );

  await t.step("explore's own parameters stay known", async () => {
    const query = "latitude=48.86&longitude=2.35&radiusKm=10&sort=distance&hasSpots=true&" +
      "limit=5&search=dog&bbox=2,48,3,49";
    const res = await svc.request(`/api/v1/tasks/explore?${query}`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await res.json()).length, 1);
  });
});

Deno.test("every API endpoint refuses an unknown query parameter", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const doc = await (await svc.request("/openapi.json")).json();
  let checked = 0;
  const paths = Object.entries(doc.paths as Record<string, { servers?: unknown }>);
  // Root paths (health, this document, pages and their assets) are not API calls: a prober's
  // or a cache buster's parameter must not break them.
  for (const [path, item] of paths.filter(([, item]) => !item.servers)) {
    for (const method of Object.keys(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const url = `/api/v1${path.replaceAll(/\{[^}]+\}/g, crypto.randomUUID())}?bogus=1`;
      const res = await svc.request(url, {
        method: method.toUpperCase(),
        headers: bearer(user.token),
      });
      const body: Problem = await res.json();
      assert.equal(res.status, 400, `${method} ${url}: ${JSON.stringify(body).slice(0, 300)}`);
      assert.equal(body.code, "UNKNOWN_PARAMETER", `${method} ${url}`);
      assert.deepEqual(body.errors?.[0], { path: "bogus", message: "is not a known parameter" });
      checked++;
    }
  }
  assert.ok(checked >= 40, `only ${checked} operations`);
});
