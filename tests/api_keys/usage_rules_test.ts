/** The pure rules of per-key usage figures (domain/usage.ts): outcomes and UTC buckets. */
import assert from "node:assert/strict";
import { bucketStart, oldestKept, outcomeOf, rangeStart, toSeries } from "../../domain/usage.ts";

Deno.test("a status counts as ok below 400, rateLimited at 429, clientError 4xx, serverError 5xx", () => {
  assert.deepEqual(
    [200, 201, 204, 304, 400, 401, 403, 404, 409, 429, 500, 503].map(outcomeOf),
    [
      "ok",
      "ok",
      "ok",
      "ok",
      "clientError",
      "clientError",
      "clientError",
      "clientError",
      "clientError",
      "rateLimited",
      "serverError",
      "serverError",
    ],
  );
});

Deno.test("buckets are UTC hours and days; ranges end with the current bucket", () => {
  const at = Date.parse("2030-03-01T10:20:30.000Z");
  assert.equal(new Date(bucketStart("hour", at)).toISOString(), "2030-03-01T10:00:00.000Z");
  assert.equal(new Date(bucketStart("day", at)).toISOString(), "2030-03-01T00:00:00.000Z");
  assert.equal(new Date(rangeStart("24h", at)).toISOString(), "2030-02-28T11:00:00.000Z");
  assert.equal(new Date(rangeStart("7d", at)).toISOString(), "2030-02-22T11:00:00.000Z");
  assert.equal(new Date(rangeStart("90d", at)).toISOString(), "2029-12-02T00:00:00.000Z");
  assert.equal(oldestKept("hour", at), rangeStart("7d", at), "hours kept are what 7d shows");
  assert.equal(oldestKept("day", at), rangeStart("90d", at), "days kept are what 90d shows");
});

Deno.test("a series is dense: every bucket of the range, zeros where nothing was counted", () => {
  const at = Date.parse("2030-03-01T10:20:30.000Z");
  const counts = new Map([[bucketStart("hour", at), { ok: 3, serverError: 1 }]]);
  const { series, bucket } = toSeries("24h", counts, at);
  assert.equal(bucket, "hour");
  assert.equal(series.length, 24);
  assert.deepEqual(series.at(-1), {
    start: "2030-03-01T10:00:00.000Z",
    ok: 3,
    clientError: 0,
    rateLimited: 0,
    serverError: 1,
  });
  assert.ok(series.slice(0, -1).every((p) => p.ok + p.serverError === 0));
});
