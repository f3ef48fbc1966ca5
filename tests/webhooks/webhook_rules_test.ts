/**
 * Delivery rules over a real receiver: secret rotation, disabling an endpoint that keeps failing,
 * and the target check made again at each attempt.
 */
import assert from "node:assert/strict";
import { bearer, signUp } from "../helpers.ts";
import { startReceiver } from "./webhook_receiver.ts";
import {
  addEndpoint,
  deliveries,
  failedDelivery,
  sendTestEvent,
  waitUntil,
  workingService,
} from "./webhook_fixtures.ts";

Deno.test("after a rotation a delivery verifies with the new secret and with the old", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  const rotated = await (await svc.request(`/v1/webhooks/${hook.id}/rotate-secret`, {
    method: "POST",
    headers: bearer(user.token),
  })).json();
  receiver.secrets.push(hook.secret, rotated.secret);
  await sendTestEvent(svc, user.token, hook.id);
  await receiver.waitFor((r) => r.length >= 1);
  assert.deepEqual(receiver.received[0].verifiedWith, [hook.secret, rotated.secret]);
  assert.equal(receiver.received[0].signature.split(" ").length, 2);
});

Deno.test("an endpoint failing for the whole disable window is disabled and says why", async () => {
  await using svc = await workingService({
    policy: { retrySchedule: [100, 100, 100, 100, 100, 100], disableAfterMs: 250 },
  });
  await using receiver = startReceiver();
  receiver.answer = () => new Response("no", { status: 500 });
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  await sendTestEvent(svc, user.token, hook.id);
  let endpoint = null;
  await waitUntil(async () => {
    endpoint = await (await svc.request(`/v1/webhooks/${hook.id}`, {
      headers: bearer(user.token),
    })).json();
    return endpoint.enabled === false;
  });
  assert.match(endpoint!.disabledReason, /failed since/);
  const log = await (await svc.request("/v1/security-log", { headers: bearer(user.token) })).json();
  assert.ok(log.some((e: { type: string }) => e.type === "webhook.disabled"));

  const enabled = await (await svc.request(`/v1/webhooks/${hook.id}`, {
    method: "PATCH",
    headers: bearer(user.token),
    json: { enabled: true },
  })).json();
  assert.equal(enabled.disabledReason, null, "enabling again starts over");
  assert.equal(enabled.failingSince, null);
});

Deno.test("a target is checked again at each delivery: a private address is refused then", async () => {
  // Created while private targets were allowed; delivered by a worker that refuses them, as
  // happens when a name starts resolving to a private address after the endpoint was checked.
  await using svc = await workingService({ policy: { allowPrivate: false, retrySchedule: [] } });
  await using receiver = startReceiver();
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  await sendTestEvent(svc, user.token, hook.id);
  const delivery = await failedDelivery(svc, user.token, hook.id);
  assert.equal(delivery.history[0].category, "target_refused");
  assert.equal(receiver.received.length, 0);
});

Deno.test("only the status line of an answer is read: an endless body does not hold an attempt", async () => {
  await using svc = await workingService({ policy: { timeoutMs: 1_000 } });
  await using receiver = startReceiver();
  let sent = 0;
  receiver.answer = () =>
    new Response(
      new ReadableStream({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          sent += 16_384;
          controller.enqueue(new Uint8Array(16_384));
        },
      }),
    );
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  await sendTestEvent(svc, user.token, hook.id);
  await waitUntil(async () =>
    (await deliveries(svc, user.token, hook.id))[0]?.status === "succeeded"
  );
  const [delivery] = await deliveries(svc, user.token, hook.id);
  assert.equal(delivery.attempts, 1);
  assert.ok(delivery.lastDurationMs < 1_000, `answered in ${delivery.lastDurationMs} ms`);
  assert.ok(sent < 10 * 16_384, "the connection was closed after the status line");
});
