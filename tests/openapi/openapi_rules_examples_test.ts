/**
 * The invalid requests the rest of the suite sends are invalid by the document's schemas (Ajv,
 * JSON Schema 2020-12), and the rules stated in words only are listed.
 */
import assert from "node:assert/strict";
import { bearer, setup, signUp } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";
import { loadDocument, RELAXED, type Schema, validators } from "./openapi_rules_fixtures.ts";

const PARIS = { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" };
const KEY = { name: "k", scopes: ["tasks:read"] };

/** Invalid bodies other tests send (a representative set), by the file that sends each. */
const SUITE_EXAMPLES: [source: string, schema: string, body: Record<string, unknown>][] = [
  ["../tasks/task_validation_test.ts: blank title", "TaskCreate", taskBody({ title: "   " })],
  [
    "../tasks/task_validation_test.ts: title of 201",
    "TaskCreate",
    taskBody({ title: "x".repeat(201) }),
  ],
  ["../tasks/task_validation_test.ts: budget as text", "TaskCreate", taskBody({ budget: "10" })],
  ["../tasks/task_validation_test.ts: currency eur", "TaskCreate", taskBody({ currency: "eur" })],
  ["../tasks/task_validation_test.ts: currency EURO", "TaskCreate", taskBody({ currency: "EURO" })],
  ["../tasks/task_validation_test.ts: currency ABC", "TaskCreate", taskBody({ currency: "ABC" })],
  [
    "../tasks/task_validation_test.ts: one coordinate",
    "TaskCreate",
    taskBody({
      location: { ...PARIS, coordinates: [2.35] },
    }),
  ],
  [
    "../tasks/task_validation_test.ts: three coordinates",
    "TaskCreate",
    taskBody({
      location: { ...PARIS, coordinates: [2.35, 48.85, 10] },
    }),
  ],
  [
    "../tasks/task_validation_test.ts: latitude 90.01",
    "TaskCreate",
    taskBody({
      location: { ...PARIS, coordinates: [0, 90.01] },
    }),
  ],
  [
    "../tasks/task_validation_test.ts: countryCode fr",
    "TaskCreate",
    taskBody({
      location: { ...PARIS, countryCode: "fr" },
    }),
  ],
  [
    "../tasks/task_validation_test.ts: countryCode QQ",
    "TaskCreate",
    taskBody({
      location: { ...PARIS, countryCode: "QQ" },
    }),
  ],
  [
    "../tasks/task_validation_test.ts: radius without radiusKm",
    "TaskCreate",
    taskBody({
      location: { ...PARIS, type: "radius" },
    }),
  ],
  [
    "../tasks/task_validation_test.ts: radiusKm for a city",
    "TaskCreate",
    taskBody({
      location: { ...PARIS, radiusKm: 10 },
    }),
  ],
  [
    "../tasks/task_validation_test.ts: dueDate 2030-02-30",
    "TaskCreate",
    taskBody({ dueDate: "2030-02-30" }),
  ],
  [
    "../tasks/task_validation_test.ts: dueDate without offset",
    "TaskCreate",
    taskBody({
      dueDate: "2030-05-01T10:00:00",
    }),
  ],
  ["../tasks/task_validation_test.ts: maxPeople 1.5", "TaskCreate", taskBody({ maxPeople: 1.5 })],
  [
    "../tasks/task_validation_test.ts: http image",
    "TaskCreate",
    taskBody({
      images: ["http://img.example.com/a.jpg"],
    }),
  ],
  [
    "../tasks/task_validation_test.ts: not a URL",
    "TaskCreate",
    taskBody({ images: ["not a url"] }),
  ],
  ["../api_keys/api_keys_test.ts: both expiries", "ApiKeyCreate", {
    ...KEY,
    expiresInDays: 5,
    expiresAt: "2030-04-01T00:00:00Z",
  }],
  ["../api_keys/api_keys_test.ts: neither expiry", "ApiKeyCreate", KEY],
  ["../api_keys/api_keys_test.ts: blank name", "ApiKeyCreate", {
    ...KEY,
    name: "  ",
    expiresInDays: 1,
  }],
  ["../api_keys/api_keys_test.ts: expiresInDays 366", "ApiKeyCreate", {
    ...KEY,
    expiresInDays: 366,
  }],
  ["../api_keys/api_keys_test.ts: unknown scope", "ApiKeyCreate", {
    ...KEY,
    scopes: ["tasks:admin"],
    expiresInDays: 1,
  }],
  ["../browser/dashboard_test.ts: not an IP", "ApiKeyCreate", {
    ...KEY,
    expiresInDays: 1,
    ipWhitelist: ["not-an-ip"],
  }],
  ["../webhooks/webhook_endpoints_test.ts: http URL", "WebhookCreate", {
    url: "http://93.184.215.14/hook",
    events: ["*"],
  }],
  ["../webhooks/webhook_endpoints_test.ts: ftp URL", "WebhookCreate", {
    url: "ftp://93.184.215.14/hook",
    events: ["*"],
  }],
];

/**
 * Rules the service enforces that no static schema can hold: they depend on the clock, on where
 * a name resolves, or on exact decimal arithmetic. The document states them in words; each is
 * valid by the schema here, so stating one in the schema moves it to SUITE_EXAMPLES.
 */
const STATED_IN_WORDS: [rule: string, schema: string, body: Record<string, unknown>][] = [
  ["budget has at most 2 decimals", "TaskCreate", taskBody({ budget: 10.005 })],
  ["expiresAt lies in the future", "ApiKeyCreate", { ...KEY, expiresAt: "2001-01-01T00:00:00Z" }],
  ["a webhook goes to a public address", "WebhookCreate", {
    url: "https://169.254.169.254/latest",
    events: ["*"],
  }],
];

Deno.test("the invalid requests the suite sends are invalid by the document's schemas", async (t) => {
  await using svc = await setup({ settings: RELAXED });
  const doc = await loadDocument(svc);
  const valid = validators(doc);
  const { token } = await signUp(svc);
  const paths: Record<string, string> = {
    TaskCreate: "/tasks",
    ApiKeyCreate: "/keys",
    WebhookCreate: "/webhooks",
  };
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const refused = async (name: string, body: unknown) => {
    const res = await svc.request(`/v1${paths[name]}`, {
      method: "POST",
      headers: bearer(token),
      json: body,
    });
    await res.body?.cancel();
    return res.status === 400;
  };

  for (const [source, name, body] of SUITE_EXAMPLES) {
    await t.step(source, async () => {
      // Sent first, so that a validating proxy before the service sees it whatever Ajv says.
      const refusedByService = await refused(name, body);
      assert.equal(valid.body(ref(name), body), false, "the schema refuses it");
      assert.ok(refusedByService, "the service refuses it");
    });
  }
  for (const [rule, name, body] of STATED_IN_WORDS) {
    await t.step(`stated in words only: ${rule}`, async () => {
      assert.equal(valid.body(ref(name), body), true);
      assert.ok(await refused(name, body), "the service refuses it");
    });
  }
});

/** Invalid explore `bbox` values other tests send, by the file that sends each, and one more. */
const BBOX_EXAMPLES: [source: string, value: string][] = [
  ["../explore/explore_map_test.ts: three numbers", "1,2,3"],
  ["../explore/explore_map_test.ts: not numbers", "a,b,c,d"],
  ["../explore/explore_map_test.ts: longitude 181", "0,0,181,1"],
  ["../explore/explore_map_test.ts: exponent notation", "1e1,0,2,1"],
  ["../explore/country_coordinates_test.ts: Tokyo latitude first", "35.6,139.6,35.8,139.9"],
  ["a latitude past -90", "0,-90.5,1,0"],
];

/** bbox rules no pattern can hold: they compare two of its numbers. */
const BBOX_STATED_IN_WORDS: [rule: string, value: string][] = [
  ["minLat is not above maxLat", "0,10,1,5"],
];

Deno.test("the invalid bbox values the suite sends are invalid by the document's pattern", async (t) => {
  await using svc = await setup({ settings: RELAXED });
  const doc = await loadDocument(svc);
  const valid = validators(doc);
  const param = doc.paths["/tasks/explore"].get.parameters.find((p: Schema) => p.name === "bbox");
  const status = async (value: string) => {
    const res = await svc.request(`/v1/tasks/explore?${new URLSearchParams({ bbox: value })}`);
    await res.body?.cancel();
    return res.status;
  };
  for (const value of ["2.2,48.8,2.5,48.95", "170,-20,-170,-10", "-180,-90,180,90", "0,0,0.5,1"]) {
    await t.step(`valid: ${value}`, async () => {
      assert.equal(valid.query(param.schema, value), true);
      assert.equal(await status(value), 200);
    });
  }
  for (const [source, value] of BBOX_EXAMPLES) {
    await t.step(source, async () => {
      const answered = await status(value); // sent first, as above
      assert.equal(valid.query(param.schema, value), false, "the schema refuses it");
      assert.equal(answered, 400, "the service refuses it");
    });
  }
  for (const [rule, value] of BBOX_STATED_IN_WORDS) {
    await t.step(`stated in words only: ${rule}`, async () => {
      assert.equal(valid.query(param.schema, value), true);
      assert.equal(await status(value), 400, "the service refuses it");
    });
  }
});
