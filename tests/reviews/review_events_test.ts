/**
 * `review.published` through webhooks: when reviews become visible (the counterpart reviewed
 * back, or the window closed), each reaches both its reviewer's and its reviewee's endpoints,
 * signed and verified by the reference `standardwebhooks` package on a real receiver; once.
 */
import assert from "node:assert/strict";
import { REVIEW_WINDOW_MS } from "../../domain/reviews/review.ts";
import { publishReview } from "../../kv/reviews/events.ts";
import { createKey, signUp, type TestContext } from "../helpers.ts";
import { type Receiver, startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, workingService } from "../webhooks/webhook_fixtures.ts";
import { completedTask, relogin, review, send, type User } from "./fixtures.ts";

/** Gives `user` an endpoint hearing `review.published` on a receiver of their own. */
async function listen(svc: TestContext, user: User, stack: AsyncDisposableStack) {
  const receiver = stack.use(startReceiver());
  const hook = await addEndpoint(svc, user.token, {
    url: receiver.url,
    events: ["review.published"],
  });
  receiver.secrets.push(hook.secret);
  return { receiver, secret: hook.secret };
}

/** The review ids of the `review.published` events a receiver got, each verified. */
function published(receiver: Receiver, secret: string): string[] {
  return receiver.received.map((r) => {
    assert.equal(r.event.type, "review.published");
    assert.deepEqual(r.verifiedWith, [secret], "verified with the endpoint's secret");
    assert.equal(r.id, r.event.id, "webhook-id is the event id");
    assert.equal(r.event.data.visible, true);
    return r.event.data.id as string;
  }).sort();
}

Deno.test("a review back publishes both reviews to both parties' endpoints, signed, once", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  const ownerHook = await listen(svc, owner, stack);
  const annHook = await listen(svc, ann, stack);

  const first = await review(svc, owner, { taskId, revieweeId: ann.id, rating: 5, comment: "Ace" });
  await svc.jobs.drain();
  assert.equal(ownerHook.receiver.received.length, 0, "nothing while the review is hidden");
  assert.equal(annHook.receiver.received.length, 0);

  const back = await review(svc, ann, { taskId, revieweeId: owner.id, rating: 4 });
  const both = [first.body.id, back.body.id].sort();
  await ownerHook.receiver.waitFor((r) => r.length >= 2);
  await annHook.receiver.waitFor((r) => r.length >= 2);
  await svc.jobs.drain(); // nothing else is on its way
  assert.deepEqual(published(ownerHook.receiver, ownerHook.secret), both);
  assert.deepEqual(published(annHook.receiver, annHook.secret), both);
  const data = annHook.receiver.received.find((r) => r.event.data.id === first.body.id)!.event.data;
  assert.deepEqual(data, { ...first.body, visible: true }, "the review as its author sees it");

  // The job run again (a lease lost mid-run) raises nothing twice.
  const context = { kv: svc.kv, now: svc.deps.now };
  await publishReview(context, {
    kind: "review_published",
    taskId,
    reviewerId: owner.id,
    revieweeId: ann.id,
  });
  await svc.jobs.drain();
  assert.equal(annHook.receiver.received.length, 2);
});

Deno.test("the window's close publishes a lone review to both parties", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  // The task was completed and reviewed 14 days ago; the clock then comes back to now, so that
  // the deliveries carry timestamps the receiver's verification takes. The parties listen while
  // the window is still open (a minute before its close): the runner, which runs beside the test,
  // would otherwise close it before their endpoints exist.
  const now = Date.now();
  svc.deps.now = () => now - REVIEW_WINDOW_MS - 60_000;
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  const lone = await review(svc, ann, { taskId, revieweeId: owner.id, rating: 1 });
  svc.deps.now = () => now - 120_000;
  const o = await relogin(svc, owner);
  const a = await relogin(svc, ann);
  const ownerHook = await listen(svc, o, stack);
  const annHook = await listen(svc, a, stack);
  await svc.jobs.drain();
  assert.equal(ownerHook.receiver.received.length, 0, "the window is not closed yet");
  svc.deps.now = () => now;
  await svc.jobs.drain();
  await ownerHook.receiver.waitFor((r) => r.length >= 1);
  await annHook.receiver.waitFor((r) => r.length >= 1);
  assert.deepEqual(published(ownerHook.receiver, ownerHook.secret), [lone.body.id]);
  assert.deepEqual(published(annHook.receiver, annHook.secret), [lone.body.id]);
});

Deno.test("an endpoint set by a key without reviews:read cannot select review.published", async () => {
  await using svc = await workingService();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { scopes: ["webhooks:write"] });
  const res = await send(svc, "/v1/webhooks", {
    method: "POST",
    headers: { "X-API-Key": key.value },
    json: { url: "http://127.0.0.1:9/hook", events: ["review.published"] },
  });
  assert.equal(res.status, 403);
  assert.equal(res.body.scope, "reviews:read");
});
