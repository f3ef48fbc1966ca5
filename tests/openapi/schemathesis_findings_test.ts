/**
 * What an outside Schemathesis run found the document and the service disagreeing on, held to
 * one answer: for each sample, the document's schema (Ajv 2020-12 with ajv-formats) takes it
 * exactly when the service does, and the service refuses with 400 what the schema refuses.
 */
import assert from "node:assert/strict";
import { bearer, setup, signUp, type TestContext } from "../helpers.ts";
import { loadDocument, RELAXED, type Schema, validators } from "./openapi_rules_fixtures.ts";

/** The service's status for each sample against the schema's verdict: 2xx when valid, else 400. */
async function agree(
  samples: unknown[],
  valid: (sample: unknown) => boolean,
  send: (sample: unknown) => Promise<Response>,
) {
  for (const sample of samples) {
    const res = await send(sample); // sent first: the verdict is the service's, whatever Ajv says
    const body = await res.text();
    const shown = JSON.stringify(sample).slice(0, 80);
    if (valid(sample)) assert.ok(res.ok, `${shown}: the document takes it, the service: ${body}`);
    else assert.equal(res.status, 400, `${shown}: the document refuses it, the service: ${body}`);
  }
}

async function documented(svc: TestContext) {
  const doc = await loadDocument(svc);
  const v = validators(doc);
  const member = (schema: string, name: string) => (value: unknown) =>
    v.body({ $ref: `#/components/schemas/${schema}` }, { [name]: value }) ||
    // Another member's rule (a required one missing) must not decide: judge the member alone.
    v.body(doc.components.schemas[schema].properties[name], value);
  const query = (path: string, name: string) => {
    const param = doc.paths[path].get.parameters.find((p: Schema) => p.name === name);
    return (value: unknown) => v.query(param.schema, String(value));
  };
  return { doc, v, member, query };
}

Deno.test("the webhook url pattern takes exactly the URLs the service takes", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const doc = await (await svc.request("/openapi.json")).json();
  const pattern = new RegExp(doc.components.schemas.WebhookCreate.properties.url.pattern);
  // Public address literals: the service's answer needs no name resolution.
  const samples = [
    "HTTPS:",
    "https:",
    "https://user:secret@93.184.215.14/hook",
    "http://93.184.215.14/hook",
    "https://93.184.215.14/hook",
    " HTTPS://93.184.215.14:8443/hook?x=1 ",
    "\u3000https://93.184.215.14/hook\ufeff",
    "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/",
  ];
  for (const url of samples) {
    const res = await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      json: { url, events: ["task.created"] },
    });
    await res.body?.cancel();
    assert.equal(pattern.test(url), res.status === 201, `${JSON.stringify(url)}: ${res.status}`);
  }
});

Deno.test("alert filters' at-least-one and together rules: the document refuses what the service refuses", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const { v } = await documented(svc);
  const valid = (f: unknown) => v.body({ $ref: "#/components/schemas/AlertFilters" }, f);
  const samples = [
    {},
    { latitude: 48.86 },
    { latitude: 48.86, longitude: 2.35 },
    { radiusKm: 5 },
    { latitude: 48.86, longitude: 2.35, radiusKm: 5 },
    { cityName: "Paris" },
  ];
  for (const filters of samples) {
    const res = await svc.request("/api/v1/alerts", {
      method: "POST",
      headers: bearer(user.token),
      json: { name: "An alert", filters },
    });
    await res.body?.cancel();
    assert.equal(valid(filters), res.status === 201, `${JSON.stringify(filters)}: ${res.status}`);
  }
});

Deno.test("sign-up emails: the document's pattern is the service's rule", async () => {
  await using svc = await setup({ settings: RELAXED });
  const { member } = await documented(svc);
  const samples = [
    "ada@example.com",
    "zero@com",
    "a@b.c",
    "a@b-.example",
    "a.b+c_d-e@mail.sub.example.org",
    "o'neil@example.ie",
    "quote'@example.com",
    ".ada@example.com",
    "ada.@example.com",
    "a..b@example.com",
    " ada@example.com",
    "GRACE@EXAMPLE.COM",
    "ada@exa_mple.com",
    "ada@[127.0.0.1]",
    "ada!@example.com",
    "ädä@example.com",
  ];
  await agree(samples, member("SignUp", "email"), (email) =>
    svc.request("/v1/users", {
      method: "POST",
      json: {
        email,
        password: "correct horse battery",
        firstName: "Ada",
      },
    }));
});

Deno.test("regionName and cityName: blank once trimmed is refused by both, the length counted as sent", async () => {
  await using svc = await setup({ settings: RELAXED });
  const { query } = await documented(svc);
  const samples = ["Paris", " Paris ", "  ", "\t", "\u00a0\u3000", "\u200b", "x".repeat(200)];
  for (const name of ["regionName", "cityName"]) {
    await agree(
      [...samples, `${"x".repeat(200)} `],
      query("/tasks/explore", name),
      (value) => svc.request(`/v1/tasks/explore?${new URLSearchParams({ [name]: String(value) })}`),
    );
  }
});

Deno.test("ipWhitelist entries: the document's pattern is what the service takes", async () => {
  await using svc = await setup({ settings: RELAXED });
  const user = await signUp(svc);
  const { member } = await documented(svc);
  const created = await svc.request("/v1/keys", {
    method: "POST",
    headers: bearer(user.token),
    json: { name: "k", scopes: ["tasks:read"], expiresInDays: 1 },
  });
  const { id } = await created.json();
  const samples = [
    "203.0.113.7",
    "10.0.0.0/8",
    "0.0.0.0/0",
    " 192.0.2.1/32 ",
    "256.1.1.1",
    "01.2.3.4",
    "1.2.3",
    "127.1",
    "0x7f.0.0.1",
    "1.2.3.4/33",
    "1.2.3.4/08",
    "1.2.3.4/",
    "[192.0.2.1]",
    "::",
    "::1",
    "[::1]",
    "[::1]/64",
    "2001:db8::/32",
    "2001:DB8::/0",
    "1:2:3:4:5:6:7:8/128",
    "1:2:3:4:5:6:7::",
    "1:2:3:4:5:6:7:8:9",
    "1::2::3",
    "00001::",
    "2001:db8::/129",
    "fe80::1%eth0",
    "::ffff:192.0.2.1",
    "::ffff:10.0.0.0/104",
    "::ffff:10.0.0.0/50",
    "64:ff9b::192.0.2.1/96",
    "64:ff9b::192.0.2.1/64",
    "1:2:3:4:5:6:7:1.2.3.4",
    "not-an-ip",
    "",
  ];
  const entry = member("ApiKeyUpdate", "ipWhitelist");
  await agree(samples, (ip) => entry([ip]), (ip) =>
    svc.request(`/v1/keys/${id}`, {
      method: "PATCH",
      headers: bearer(user.token),
      json: { ipWhitelist: [ip] },
    }));
});

/** A profile update of one member, and that member's verdict by the document. */
async function profileField(svc: TestContext, name: "firstName" | "lastName") {
  const me = await signUp(svc);
  const { member } = await documented(svc);
  return {
    valid: member("UserUpdate", name),
    send: (value: unknown) =>
      svc.request(`/v1/users/${me.id}`, {
        method: "PUT",
        headers: bearer(me.token),
        json: { [name]: value },
      }),
  };
}

Deno.test("user text: a maximum and the characters are judged as sent, before the trim", async () => {
  await using svc = await setup({ settings: RELAXED });
  const samples = [
    "Ada",
    " Ada ",
    "x".repeat(100),
    `${"x".repeat(100)} `,
    ` ${"x".repeat(99)}`,
    "Ada\n",
    "\tAda",
    "Ada\u2028",
  ];
  for (const name of ["firstName", "lastName"] as const) {
    const { valid, send } = await profileField(svc, name);
    await agree(samples, valid, send);
  }
});

Deno.test("user text: nothing visible is refused by the document as by the service", async () => {
  await using svc = await setup({ settings: RELAXED });
  const samples = [
    "\u200b",
    " \u200b\u200d ",
    "\u2060\ufeff",
    "\u00ad",
    "\u3164",
    "\u2800",
    "e\u0301",
    "\u0301",
    "\ue000",
    "😀",
    "\u{e0020}",
    "Ada\u200b",
  ];
  for (const name of ["firstName", "lastName"] as const) {
    const { valid, send } = await profileField(svc, name);
    // A text that may be empty: blank is taken (and stored empty), invisible is not.
    await agree(name === "lastName" ? [...samples, "", "   ", "\u3000"] : samples, valid, send);
  }
});

Deno.test("profilePic: the document takes the https URLs of any host the service takes", async () => {
  await using svc = await setup({ settings: RELAXED });
  const me = await signUp(svc);
  const { member } = await documented(svc);
  const samples = [
    "https://img.example.com/a.png",
    "https://bücher.example/a.png",
    "https://img.example.com/é.png",
    "https://img.example.com/{size}|a.png",
    "HTTPS://IMG.EXAMPLE.COM/A.PNG",
    "https://[2001:db8::1]:8443/a.png",
    "https://img.example.com/a@2x.png",
    "https://user:secret@img.example.com/a.png",
    "https://@img.example.com/a.png",
    "http://img.example.com/a.png",
    "https://",
    "https:///img.example.com",
    " https://img.example.com/a.png",
    "https://img.example.com/a b.png",
    "https://img.example.com/a.png\u0085",
    "https://img.example.com/a.png\u00a0",
  ];
  await agree(
    samples,
    member("UserUpdate", "profilePic"),
    (url) =>
      svc.request(`/v1/users/${me.id}`, {
        method: "PUT",
        headers: bearer(me.token),
        json: { profilePic: url },
      }),
  );
});

Deno.test("a key's expiresAt: the clock rule is in the field's description and the 400's, and held", async () => {
  await using svc = await setup({ settings: RELAXED });
  const user = await signUp(svc);
  const { doc, member } = await documented(svc);
  const field = doc.components.schemas.ApiKeyCreate.properties.expiresAt;
  assert.match(field.description, /after the request/);
  assert.match(field.description, /365 days/);
  assert.match(doc.paths["/keys"].post.responses["400"].description, /expiresAt/);
  const day = 86_400_000;
  const at = (ms: number) => new Date(Date.now() + ms).toISOString();
  for (const [expiresAt, taken] of [[at(-day), false], [at(400 * day), false], [at(day), true]]) {
    assert.ok(member("ApiKeyCreate", "expiresAt")(expiresAt), "the schema takes any date-time");
    const res = await svc.request("/v1/keys", {
      method: "POST",
      headers: bearer(user.token),
      json: { name: "k", scopes: ["tasks:read"], expiresAt },
    });
    await res.body?.cancel();
    assert.equal(res.status, taken ? 201 : 400, String(expiresAt));
  }
});

Deno.test("budget and price: their description says the two decimals and why not multipleOf", async () => {
  await using svc = await setup({ settings: RELAXED });
  const { doc } = await documented(svc);
  const schemas = doc.components.schemas;
  for (
    const amount of [
      schemas.TaskCreate.properties.budget,
      schemas.ApplicationCreate.properties.price,
    ]
  ) {
    assert.match(amount.description, /At most 2 decimals/);
    assert.match(amount.description, /multipleOf: 0\.01/);
    assert.equal(amount.multipleOf, undefined);
  }
});

Deno.test("ids: the document's uuid takes exactly the ids the service takes", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const { member } = await documented(svc);
  const valid = member("ReviewCreate", "revieweeId");
  const samples = [
    crypto.randomUUID(),
    "00000000-0000-0000-0000-000000000000",
    "5c4d7e39-49ba-e59a-f603-26c63bdbf7de", // no version digit
    "e3e70682-c209-4cac-629f-6fbed82c07cd", // the variant bits of none
  ];
  for (const revieweeId of samples) {
    // An unknown task: a valid body is then a 404, an invalid one the 400 before any lookup.
    const res = await svc.request(`/v1/tasks/${crypto.randomUUID()}/reviews`, {
      method: "POST",
      headers: bearer(user.token),
      json: { revieweeId, rating: 5 },
    });
    const body = await res.text();
    if (valid(revieweeId)) assert.notEqual(res.status, 400, `${revieweeId}: taken by the document`);
    else {assert.equal(
        res.status,
        400,
        `${revieweeId}: refused by the document, the service: ${body}`,
      );}
  }
});

Deno.test('webhook events: the document takes ["*"] alone or event types, as the service does', async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const { member } = await documented(svc);
  const samples = [
    ["*"],
    ["task.created"],
    ["task.created", "task.created"],
    ["*", "task.created"],
    ["task.created", "*"],
    ["*", "*"],
    [],
    ["task.nothing"],
  ];
  let n = 0;
  await agree(samples, member("WebhookCreate", "events"), (events) =>
    svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      // Each endpoint its own address literal: the account's 10 endpoints are never reached here.
      json: { url: `https://93.184.215.14/hook${n++}`, events },
    }));
});
