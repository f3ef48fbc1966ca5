/**
 * An event larger than a KV value. A valid task (one CJK character in its
 * title, a 10,000-character description, ten 2,000-character image URLs, a 5,000-character
 * requirement) makes an event whose
 * delivery record, stored as a UTF-16 string, passed 64 KiB: the commit threw, the fan-out stopped
 * for every endpoint and the event was lost.
 */
import assert from "node:assert/strict";
import { commit } from "../../kv/commit.ts";
import { addEffects } from "../../kv/effects.ts";
import { MAX_EVENT_BYTES } from "../../kv/webhooks/webhook_event_bodies.ts";
import { signUp } from "../helpers.ts";
import { postTask, taskBody } from "../tasks/task_fixtures.ts";
import { startReceiver } from "./webhook_receiver.ts";
import { addEndpoint, deliveries, waitUntil, workingService } from "./webhook_fixtures.ts";

Deno.test("an oversize event: a valid task with a CJK title and full-size fields reaches every endpoint", async () => {
  await using svc = await workingService();
  await using first = startReceiver();
  await using second = startReceiver();
  const user = await signUp(svc);
  const hooks = [
    await addEndpoint(svc, user.token, { url: first.url, events: ["task.created"] }),
    await addEndpoint(svc, user.token, { url: second.url, events: ["task.created"] }),
  ];
  first.secrets.push(hooks[0].secret);
  second.secrets.push(hooks[1].secret);
  const images = Array.from(
    { length: 10 },
    (_, i) => `https://images.example.com/${i}/`.padEnd(1_996, "a") + ".png",
  );
  assert.ok(images.every((url) => url.length === 2_000));
  const task = await postTask(
    svc,
    user.token,
    taskBody({
      title: "修理 the fence",
      description: "d".repeat(10_000),
      requirement: "r".repeat(5_000),
      images,
    }),
  );
  for (const receiver of [first, second]) {
    await receiver.waitFor((r) => r.length >= 1);
    const [got] = receiver.received;
    assert.equal(got.verifiedWith.length, 1, "signed over the whole body");
    assert.equal(got.event.data.id, task.id);
    assert.equal(got.event.data.title, "修理 the fence");
    assert.equal(got.event.data.description.length, 10_000);
    assert.deepEqual(got.event.data.images, images);
  }
  for (const hook of hooks) {
    await waitUntil(async () =>
      (await deliveries(svc, user.token, hook.id))[0]?.status === "succeeded"
    );
  }
});

Deno.test("an event too large to store: its cause commits and its deliveries are recorded failed", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url, events: ["task.created"] });
  const cause = ["test_cause", crypto.randomUUID()];
  const op = svc.kv.atomic().set(cause, true);
  await addEffects(svc.kv, op, {
    userId: user.id,
    now: Date.now(),
    event: { type: "task.created", data: { blob: "x".repeat(MAX_EVENT_BYTES) } },
  });
  assert.ok((await commit(op)).ok, "the cause commits");
  await svc.jobs.drain();
  const [delivery] = await deliveries(svc, user.token, hook.id);
  assert.equal(delivery.status, "failed");
  assert.match(delivery.history[0].error, /too large/);
  assert.equal(receiver.received.length, 0);
});
