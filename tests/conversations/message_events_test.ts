/**
 * `message.created` through webhooks: each message reaches its recipient's endpoints once,
 * signed and verified by the reference `standardwebhooks` package on a real receiver, and never
 * the sender's; an endpoint set by a key without messages:read hears none of it.
 */
import assert from "node:assert/strict";
import { apiKey, createKey, type TestContext } from "../helpers.ts";
import { type Receiver, startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, deliveries, workingService } from "../webhooks/webhook_fixtures.ts";
import { conversation, say, type User } from "./fixtures.ts";

/** Gives `user` an endpoint hearing every event on a receiver of their own. */
async function listen(svc: TestContext, user: User, stack: AsyncDisposableStack) {
  const receiver: Receiver = stack.use(startReceiver());
  const hook = await addEndpoint(svc, user.token, { url: receiver.url, events: ["*"] });
  receiver.secrets.push(hook.secret);
  return { receiver, secret: hook.secret, id: hook.id };
}

const messagesOf = (receiver: Receiver) =>
  receiver.received.filter((r) => r.event?.type === "message.created");

Deno.test("message.created reaches the recipient's endpoint, signed, once, and never the sender's", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const { owner, applicant, applicationId, taskId } = await conversation(svc, {
    title: "Fix a tap",
  });
  const ownerHook = await listen(svc, owner, stack);
  const applicantHook = await listen(svc, applicant, stack);

  const sent = await say(svc, applicant, applicationId, "Which tap is it?");
  const reply = await say(svc, owner, applicationId, "The kitchen one");
  await ownerHook.receiver.waitFor((r) => messagesOf({ received: r } as Receiver).length >= 1);
  await applicantHook.receiver.waitFor((r) => messagesOf({ received: r } as Receiver).length >= 1);
  await svc.jobs.drain();

  const [toOwner] = messagesOf(ownerHook.receiver);
  assert.equal(messagesOf(ownerHook.receiver).length, 1, "once, and not the owner's own reply");
  assert.deepEqual(toOwner.verifiedWith, [ownerHook.secret]);
  assert.equal(toOwner.id, toOwner.event.id);
  assert.deepEqual(toOwner.event.data, { message: sent, task: { id: taskId, title: "Fix a tap" } });
  const [toApplicant] = messagesOf(applicantHook.receiver);
  assert.equal(messagesOf(applicantHook.receiver).length, 1);
  assert.deepEqual(toApplicant.verifiedWith, [applicantHook.secret]);
  assert.deepEqual(toApplicant.event.data.message, reply);
});

Deno.test("an endpoint set by a key without messages:read hears no message", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const { owner, applicant, applicationId } = await conversation(svc);
  const receiver: Receiver = stack.use(startReceiver());
  const narrow = await createKey(svc, owner.token, {
    scopes: ["webhooks:write", "applications:read"],
  });
  const denied = await svc.request("/v1/webhooks", {
    method: "POST",
    headers: apiKey(narrow.value),
    json: { url: receiver.url, events: ["message.created"] },
  });
  assert.equal(denied.status, 403);
  const problem = await denied.json();
  assert.equal(problem.code, "SCOPE_INSUFFICIENT");
  assert.equal(problem.scope, "messages:read");
  const made = await svc.request("/v1/webhooks", {
    method: "POST",
    headers: apiKey(narrow.value),
    json: { url: receiver.url, events: ["*"] },
  });
  assert.equal(made.status, 201);
  const hook = await made.json();
  await say(svc, applicant, applicationId, "hello?");
  // What the key may read still arrives: the message's event was skipped, not delayed.
  const accepted = await svc.request(`/v1/applications/${applicationId}`, {
    method: "PATCH",
    headers: apiKey(narrow.value),
    json: { status: "accepted" },
  });
  assert.equal(accepted.status, 403, "applications:write is not the key's");
  await svc.request(`/v1/applications/${applicationId}`, {
    method: "PATCH",
    headers: { Authorization: `Bearer ${owner.token}` },
    json: { status: "accepted" },
  }).then((r) => r.body?.cancel());
  await receiver.waitFor((r) => r.some((x) => x.event?.type === "application.accepted"));
  await svc.jobs.drain();
  const list = await deliveries(svc, owner.token, hook.id);
  assert.ok(list.some((d: { eventType: string }) => d.eventType === "application.accepted"));
  assert.equal(messagesOf(receiver).length, 0);
});
