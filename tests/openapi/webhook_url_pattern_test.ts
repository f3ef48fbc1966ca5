/**
 * Issue 46 #6, found by Schemathesis: the document's webhook `url` pattern took `HTTPS:` (and a
 * URL with credentials), which the service refuses. The pattern and the service now agree.
 */
import assert from "node:assert/strict";
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
