/** Signing secrets: their shape, rotation (the old one signs for 24 hours more) and signatures. */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import {
  generateSecret,
  newWebhook,
  rotateSecret,
  signatureHeader,
  signingSecrets,
  type WebhookRecord,
} from "../../domain/webhooks/webhook.ts";
import { decodeBase64 } from "../../domain/base64.ts";

function hook(secret: string): WebhookRecord {
  return newWebhook({
    userId: crypto.randomUUID(),
    url: "https://93.184.215.14/hook",
    events: ["*"],
    secret,
    at: "2026-11-24T10:00:00.000Z",
    grantedBy: { via: "session" },
  });
}

Deno.test("a secret is whsec_ and the base64 of 24 random bytes", () => {
  const secret = generateSecret();
  assert.match(secret, /^whsec_/);
  assert.equal(decodeBase64(secret.slice(6)).length, 24);
  assert.notEqual(generateSecret(), secret);
});

Deno.test("a rotated-out secret signs beside the new one for 24 hours, then stops", () => {
  const old = generateSecret();
  const fresh = generateSecret();
  const now = Date.parse("2026-11-24T10:00:00.000Z");
  const rotated = rotateSecret(hook(old), fresh, now);
  assert.deepEqual(signingSecrets(rotated, now + 23 * 3_600_000), [fresh, old]);
  assert.deepEqual(signingSecrets(rotated, now + 24 * 3_600_000), [fresh]);
  const again = rotateSecret(rotated, generateSecret(), now + 3_600_000);
  assert.equal(again.secrets.length, 2, "a second rotation drops the oldest at once");
});

Deno.test("the signature header verifies with each secret by the reference library", () => {
  const secrets = [generateSecret(), generateSecret()];
  const at = new Date();
  const body = JSON.stringify({ id: "evt_1", type: "webhook.test" });
  const headers = {
    "webhook-id": "evt_1",
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatureHeader(secrets, { id: "evt_1", at, body }),
  };
  for (const secret of secrets) assert.ok(new Webhook(secret).verify(body, headers));
  assert.throws(() => new Webhook(generateSecret()).verify(body, headers));
});
