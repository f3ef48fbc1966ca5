/** Where webhooks may go (issue 26, items 3 and 4): IPv6 forms that embed IPv4, and what a refusal says. */
import assert from "node:assert/strict";
import { isPublicAddress } from "../domain/webhook_target.ts";
import { bearer, setup, signUp } from "./helpers.ts";

Deno.test("IPv4-compatible IPv6 webhook targets are accepted: no longer, nor any IPv6 form embedding a private IPv4", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const refused = [
    "https://[::127.0.0.1]/hook", // IPv4-compatible (::/96), loopback inside
    "https://[::a9fe:a9fe]/hook", // IPv4-compatible, the metadata address inside
    "https://[::5db8:d70e]/hook", // IPv4-compatible: deprecated, refused whatever it embeds
    "https://[::ffff:0:a00:1]/hook", // SIIT-translated 10.0.0.1
    "https://[64:ff9b::7f00:1]/hook", // NAT64 to 127.0.0.1
    "https://[64:ff9b::a9fe:a9fe]/hook", // NAT64 to 169.254.169.254
    "https://[64:ff9b:1::a00:1]/hook", // local-use NAT64
    "https://[2002:7f00:1::1]/hook", // 6to4 around 127.0.0.1
    "https://[2002:5db8:d70e::1]/hook", // 6to4: relayed by third parties, refused whatever it embeds
    "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook", // Teredo, client 127.0.0.1 inverted
    "https://[2a00:1450:4001:800:0:5efe:a00:1]/hook", // ISATAP interface id around 10.0.0.1
    "https://[2a00:1450:4001:800:200:5efe:7f00:1]/hook", // ISATAP, universal bit set
  ];
  for (const url of refused) {
    const res = await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      json: { url, events: ["task.created"] },
    });
    assert.equal(res.status, 400, url);
    assert.equal((await res.json()).errors[0].path, "url", url);
  }
  for (const url of ["https://[64:ff9b::5db8:d70e]/hook", "https://[2a00:1450:4001:800::200e]/"]) {
    const res = await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      json: { url, events: ["task.created"] },
    });
    assert.equal(res.status, 201, `${url}: NAT64 to a public address, and plain global IPv6 pass`);
  }
});

Deno.test("the embedded IPv4 address is what counts, in every IPv6 form that carries one", () => {
  assert.equal(isPublicAddress("::ffff:93.184.215.14"), true, "mapped: its IPv4 address");
  assert.equal(isPublicAddress("::ffff:127.0.0.1"), false);
  assert.equal(isPublicAddress("64:ff9b::93.184.215.14"), true, "NAT64 to a public address");
  assert.equal(isPublicAddress("64:ff9b::10.0.0.1"), false);
  assert.equal(isPublicAddress("64:ff9b::100.64.0.1"), false, "NAT64 to shared address space");
  assert.equal(isPublicAddress("::1"), false);
  assert.equal(isPublicAddress("::"), false);
  assert.equal(isPublicAddress("::2"), false, "IPv4-compatible 0.0.0.2");
  assert.equal(isPublicAddress("2606:4700::6810:84e5"), true);
});
