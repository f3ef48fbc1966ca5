/** Numbers in query strings are plain decimals: anything else is 400 VALIDATION_ERROR. */
import assert from "node:assert/strict";
import { decimalParam, wholeNumberParam } from "../../domain/validation/query_number.ts";
import { bearer, setup, signUp } from "../helpers.ts";

const NOT_WHOLE = ["1e1", "0x10", " 5", "5 ", "5abc", "", "+5", "-1", "05", "2.0", "Infinity"];
const NOT_DECIMAL = ["1e1", "0x10", " 5", "5abc", "", ".5", "5.", "1_0", "Infinity", "--1"];

Deno.test("Query numbers are read strictly", async (t) => {
  await t.step("a whole number is plain digits without sign or leading zero", () => {
    const limit = wholeNumberParam(1, 50);
    for (const text of ["1", "20", "50"]) assert.equal(limit.parse(text), Number(text));
    for (const text of [...NOT_WHOLE, "0", "51"]) {
      assert.equal(limit.safeParse(text).success, false, JSON.stringify(text));
    }
    assert.equal(wholeNumberParam(0, 5).parse("0"), 0);
  });
  await t.step("a decimal has an optional sign and fraction, no exponent", () => {
    const latitude = decimalParam(-90, 90);
    for (const text of ["0", "-0.5", "+12.25", "48.8566", "-90", "90"]) {
      assert.equal(latitude.parse(text), Number(text));
    }
    for (const text of [...NOT_DECIMAL, "90.01", "-91", "9".repeat(400)]) {
      assert.equal(latitude.safeParse(text).success, false, JSON.stringify(text));
    }
  });
});

Deno.test("A query number that is not a plain decimal answers 400 VALIDATION_ERROR naming it", async (t) => {
  await using svc = await setup();
  const me = await signUp(svc);
  const geo = { latitude: "48.85", longitude: "2.35", radiusKm: "10" };
  const cases: [string, string, Record<string, string>, string[]][] = [
    ["/api/v1/tasks", "limit", {}, NOT_WHOLE],
    ["/v1/users", "limit", {}, NOT_WHOLE],
    ["/v1/projects", "limit", {}, NOT_WHOLE],
    ["/api/v1/tasks/me/status", "limit", {}, NOT_WHOLE],
    ["/api/v1/tasks/me/status", "page", {}, NOT_WHOLE],
    ["/api/v1/tasks/explore", "limit", {}, NOT_WHOLE],
    ["/api/v1/tasks/explore", "latitude", geo, NOT_DECIMAL],
    ["/api/v1/tasks/explore", "longitude", geo, NOT_DECIMAL],
    ["/api/v1/tasks/explore", "radiusKm", geo, NOT_DECIMAL],
  ];
  for (const [path, name, others, values] of cases) {
    await t.step(
      `GET ${path}?${name}= refuses ${values.map((v) => JSON.stringify(v)).join(" ")}`,
      async () => {
        for (const value of values) {
          const query = new URLSearchParams({ ...others, [name]: value });
          const res = await svc.request(`${path}?${query}`, { headers: bearer(me.token) });
          const body = await res.json();
          assert.equal(res.status, 400, `${name}=${JSON.stringify(value)}`);
          assert.equal(body.code, "VALIDATION_ERROR");
          assert.deepEqual(
            body.errors.map((e: { path: string }) => e.path),
            [name],
            `${name}=${JSON.stringify(value)}`,
          );
          assert.match(body.errors[0].message, /must be a (whole|decimal) number from/);
        }
      },
    );
  }
  await t.step("plain values are still accepted", async () => {
    for (
      const path of [
        "/api/v1/tasks?limit=50",
        "/api/v1/tasks/me/status?page=1000000&limit=1",
        "/api/v1/tasks/explore?latitude=-33.9&longitude=%2B151.2&radiusKm=12.5&limit=1",
      ]
    ) {
      const res = await svc.request(path, { headers: bearer(me.token) });
      assert.equal(res.status, 200, path);
      await res.body?.cancel();
    }
  });
});
