/**
 * Issue 46 #6, found by Schemathesis: the document took what the service refuses. The webhook
 * `url` pattern took `HTTPS:` (and a URL with credentials); alert filters' "at least one" and
 * "the circle's three together" were prose only. The document and the service now agree.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { bearer, setup, signUp } from "../helpers.ts";

Deno.test("the webhook url pattern took URLs the service refuses (issue 46 #6): both agree now", async () => {
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

Deno.test("alert filters' at-least-one and together rules were prose only (issue 46 #6): the document refuses what the service refuses", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const doc = await (await svc.request("/openapi.json")).json();
  const ajv = new Ajv2020({ strict: false, validateSchema: false });
  ajv.addSchema(doc, "openapi.json");
  const valid = ajv.compile({ $ref: "openapi.json#/components/schemas/AlertFilters" });
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
