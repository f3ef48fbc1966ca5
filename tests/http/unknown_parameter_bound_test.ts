/**
 * Security review 4, finding 4: the "did you mean" of an unknown parameter does bounded work and
 * echoes a bounded name, however long the name or however many names an anonymous request sends.
 */
import assert from "node:assert/strict";
import {
  closestName,
  COMPARED_LENGTH,
  type ComparisonMeter,
} from "../../domain/validation/closest_name.ts";
import { serveApp } from "../helpers.ts";

const KNOWN = ["latitude", "longitude", "radiusKm", "search", "cityName", "countryCode"];

Deno.test("a 60 KB unknown query name is not compared and comes back truncated", async () => {
  await using server = await serveApp();
  const name = `latitude${"x".repeat(60_000)}`;
  const res = await fetch(`${server.base}/api/v1/tasks/explore?${name}=1`);
  assert.equal(res.status, 400);
  const text = await res.text();
  const body = JSON.parse(text);
  assert.equal(body.code, "UNKNOWN_PARAMETER");
  assert.ok(text.length < 2_000, `the answer holds ${text.length} characters`);
  assert.ok(!/did you mean/.test(text), "a name that long is not compared");
  const shown = `latitude${"x".repeat(COMPARED_LENGTH - "latitude".length)}…`;
  assert.equal(body.errors[0].path, shown);
  assert.match(body.detail, new RegExp(`^Unknown parameter: ${shown}$`));
});

Deno.test("the comparison's work is bounded by the compared length, not the name's", () => {
  const long: ComparisonMeter = { cells: 0 };
  assert.equal(closestName(`q${"z".repeat(60_000)}`, KNOWN, long), undefined);
  assert.equal(long.cells, 0);
  const longest: ComparisonMeter = { cells: 0 };
  closestName("q".repeat(COMPARED_LENGTH), KNOWN, longest);
  const bound = COMPARED_LENGTH * KNOWN.reduce((sum, k) => sum + k.length, 0);
  assert.ok(longest.cells > 0 && longest.cells <= bound, `${longest.cells} cells`);
  // Suggestions still work for names of a sensible length.
  assert.equal(closestName("latitud", KNOWN), "latitude");
  assert.equal(closestName("cityname", KNOWN), "cityName");
});

Deno.test("many unknown names: the first twenty are named, the rest counted", async () => {
  await using server = await serveApp();
  const query = Array.from({ length: 500 }, (_, i) => `lat${i}=1`).join("&");
  const res = await fetch(`${server.base}/api/v1/tasks/explore?${query}`);
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.code, "UNKNOWN_PARAMETER");
  assert.equal(body.errors.length, 20);
  assert.match(body.detail, / and 480 more$/);
});
