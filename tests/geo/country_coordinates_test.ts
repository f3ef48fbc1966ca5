/**
 * A task posted with [latitude, longitude] instead of [longitude, latitude] must not land off
 * Somalia: coordinates given with a countryCode must lie in that country (contract §6).
 */
import assert from "node:assert/strict";
import { bearer, setup, signUp } from "../helpers.ts";
import type { TestContext } from "../helpers.ts";
import { postTask, taskBody } from "../tasks/task_fixtures.ts";

const PARIS = { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" };

interface Problem {
  code: string;
  errors: { path: string; message: string }[];
}

async function create(svc: TestContext, token: string, location: unknown) {
  const res = await svc.request("/api/v1/tasks", {
    method: "POST",
    headers: bearer(token),
    json: taskBody({ location }),
  });
  return { status: res.status, body: await res.json() };
}

/** The one message at `location.coordinates` of a 400 VALIDATION_ERROR. */
function coordinatesError(res: { status: number; body: Problem }): string {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, "VALIDATION_ERROR");
  const found = res.body.errors.filter((e) => e.path === "location.coordinates");
  assert.equal(found.length, 1, JSON.stringify(res.body.errors));
  return found[0].message;
}

Deno.test("a Paris task with swapped coordinates and countryCode FR is refused, asking whether they were swapped", async () => {
  await using svc = await setup();
  const { token } = await signUp(svc);
  const message = coordinatesError(
    await create(svc, token, { ...PARIS, coordinates: [48.8566, 2.3522] }),
  );
  assert.match(message, /\[longitude, latitude\]/);
  assert.match(message, /did you swap them\?/);
  assert.match(message, /FR/);
});

Deno.test("a point in Germany with countryCode FR is refused, naming DE and FR", async () => {
  await using svc = await setup();
  const { token } = await signUp(svc);
  const message = coordinatesError(
    await create(svc, token, { ...PARIS, name: "Berlin", coordinates: [13.405, 52.52] }),
  );
  assert.match(message, /lies in DE, not in FR/);
  assert.match(message, /\[longitude, latitude\]/);
  assert.doesNotMatch(message, /swap/, "swapped, Berlin lies in the Indian Ocean, not in France");
});

Deno.test("a point at sea far from the named country is refused: the Somalia case", async () => {
  await using svc = await setup();
  const { token } = await signUp(svc);
  // Paris, latitude first, without the swap landing in France: off Somalia is in no country.
  const message = coordinatesError(
    await create(svc, token, { ...PARIS, countryCode: "DE", coordinates: [48.8566, 2.3522] }),
  );
  assert.match(message, /lies in no country, and farther than 25 km from DE/);
  assert.doesNotMatch(message, /swap/);
});

Deno.test("coastal points are accepted: Marseille harbour, and the sea within 25 km of France", async () => {
  await using svc = await setup();
  const { token } = await signUp(svc);
  const harbour = { type: "city", name: "Marseille", countryCode: "FR" };
  assert.deepEqual(
    (await postTask(svc, token, { location: { ...harbour, coordinates: [5.3698, 43.2951] } }))
      .location.coordinates,
    [5.3698, 43.2951],
  );
  // West of Ouessant, just past where the border data's sea ends (about 5.55° W at 48° N).
  const offshore = { type: "radius", name: "Iroise", countryCode: "FR", radiusKm: 20 };
  await postTask(svc, token, { location: { ...offshore, coordinates: [-5.7, 48] } });
  const far = coordinatesError(
    await create(svc, token, { ...offshore, coordinates: [-6.2, 48] }),
  );
  assert.match(far, /farther than 25 km from FR/);
});

Deno.test("a territory counts as its country and as itself; world and code-less locations are not checked", async () => {
  await using svc = await setup();
  const { token } = await signUp(svc);
  const guadeloupe = { coordinates: [-61.55, 16.25], type: "city", name: "Pointe-à-Pitre" };
  await postTask(svc, token, { location: { ...guadeloupe, countryCode: "GP" } });
  await postTask(svc, token, { location: { ...guadeloupe, countryCode: "FR" } });
  assert.match(
    coordinatesError(await create(svc, token, { ...PARIS, countryCode: "GP" })),
    /lies in FR, not in GP/,
  );
  await postTask(svc, token, {
    location: { type: "world", name: "Anywhere", countryCode: "FR", coordinates: [0, 0] },
  });
  await postTask(svc, token, {
    location: { type: "city", name: "Paris", coordinates: [48.8566, 2.3522] },
  });
});

Deno.test("a made-up countryCode (XX) is refused", async () => {
  await using svc = await setup();
  const { token } = await signUp(svc);
  for (const countryCode of ["XX", "EU", "UK", "FX"]) {
    const res = await create(svc, token, { ...PARIS, countryCode });
    assert.equal(res.status, 400, countryCode);
    assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path), [
      "location.countryCode",
    ]);
  }
});

Deno.test("PATCH of a task's location is checked against its country too", async () => {
  await using svc = await setup();
  const { token } = await signUp(svc);
  const task = await postTask(svc, token);
  const patch = (location: unknown) =>
    svc.request(`/api/v1/tasks/${task.id}`, {
      method: "PATCH",
      headers: bearer(token),
      json: { location },
    });
  const res = await patch({ ...PARIS, coordinates: [48.8566, 2.3522] });
  assert.match(coordinatesError({ status: res.status, body: await res.json() }), /swap/);
  const ok = await patch({ ...PARIS, name: "Lyon", coordinates: [4.8357, 45.764] });
  assert.equal(ok.status, 200, await ok.text());
});

Deno.test("an explore bbox given latitude first is refused with the swap hint where it can be told", async () => {
  await using svc = await setup();
  // Tokyo latitude first: "latitudes" of 139.6 and 139.9 are out of range, swapped it is valid.
  const res = await svc.request("/v1/tasks/explore?bbox=35.6,139.6,35.8,139.9");
  assert.equal(res.status, 400);
  const [error] = (await res.json()).errors;
  assert.equal(error.path, "bbox");
  assert.match(error.message, /minLon,minLat,maxLon,maxLat \(longitude first\), did you swap/);
  // Invalid either way: no hint.
  const bad = await svc.request("/v1/tasks/explore?bbox=0,0,181,1");
  assert.doesNotMatch((await bad.json()).errors[0].message, /swap/);
  // Paris latitude first is a valid box off Somalia: it cannot be told, and is answered.
  const sea = await svc.request("/v1/tasks/explore?bbox=48.8,2.2,48.95,2.5");
  assert.equal(sea.status, 200);
  await sea.body?.cancel();
});
