/**
 * Deliveries over HTTPS go to the checked address while TLS verifies the certificate for the
 * URL's host name, so a name that resolves elsewhere a moment later (DNS rebinding) cannot
 * redirect them, and a certificate for another name is refused.
 */
import assert from "node:assert/strict";
import type { WebhookRecord } from "../../domain/webhooks/webhook.ts";
import { generateSecret, newWebhook } from "../../domain/webhooks/webhook.ts";
import { createWebhook } from "../../kv/webhooks/webhooks.ts";
import { bearer, signUp } from "../helpers.ts";
import { startReceiver } from "./webhook_receiver.ts";
import { sendTestEvent, waitUntil, workingService } from "./webhook_fixtures.ts";

/** A private CA and a certificate it signed for `name`, made with openssl. */
async function certificates(name: string) {
  const dir = await Deno.makeTempDir();
  const run = async (...args: string[]) => {
    const out = await new Deno.Command("openssl", { args, cwd: dir, stderr: "piped" }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  };
  await run(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=Test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign",
  );
  await run(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    `/CN=${name}`,
    "-keyout",
    "leaf.key",
    "-out",
    "leaf.csr",
  );
  await Deno.writeTextFile(`${dir}/ext.cnf`, `subjectAltName=DNS:${name}\n`);
  await run(
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "ext.cnf",
    "-out",
    "leaf.pem",
  );
  const read = (file: string) => Deno.readTextFile(`${dir}/${file}`);
  const result = {
    ca: await read("ca.pem"),
    cert: await read("leaf.pem"),
    key: await read("leaf.key"),
  };
  await Deno.remove(dir, { recursive: true });
  return result;
}

async function endpoint(kv: Deno.Kv, userId: string, url: string): Promise<WebhookRecord> {
  const at = new Date().toISOString();
  const hook = newWebhook({
    userId,
    url,
    events: ["*"],
    secret: generateSecret(),
    at,
    grantedBy: { via: "session" },
  });
  await createWebhook(kv, hook, { now: Date.now() });
  return hook;
}

Deno.test("https deliveries connect to the checked address and verify the URL's host name", async () => {
  const certs = await certificates("hooks.example.test");
  await using receiver = startReceiver({ cert: certs.cert, key: certs.key });
  const port = new URL(receiver.url).port;
  // The names resolve, for this service only, to the receiver's address.
  await using svc = await workingService({
    policy: {
      resolve: () => Promise.resolve(["127.0.0.1"]),
      caCerts: [certs.ca],
      retrySchedule: [],
      // One attempt each: its timeout is not what this tests, and a loaded machine's first TLS
      // handshake in a fresh process can pass the fixtures' short one.
      timeoutMs: 30_000,
    },
  });
  const user = await signUp(svc);
  const good = await endpoint(svc.kv, user.id, `https://hooks.example.test:${port}/hook`);
  const wrongName = await endpoint(svc.kv, user.id, `https://other.example.test:${port}/hook`);
  receiver.secrets.push(good.secrets[0].secret);

  await sendTestEvent(svc, user.token, good.id);
  await receiver.waitFor((r) => r.length >= 1);
  assert.deepEqual(receiver.received[0].verifiedWith, [good.secrets[0].secret]);

  await sendTestEvent(svc, user.token, wrongName.id);
  const deliveries = async () =>
    await (await svc.request(`/v1/webhooks/${wrongName.id}/deliveries`, {
      headers: bearer(user.token),
    })).json();
  await waitUntil(async () => (await deliveries())[0]?.status === "failed");
  const [delivery] = await deliveries(); // failed for good: no retry is scheduled
  assert.equal(delivery.status, "failed");
  assert.equal(delivery.lastStatusCode, null);
  assert.equal(delivery.history[0].category, "tls");
  assert.equal(receiver.received.length, 1, "nothing reached the receiver under another name");
});
