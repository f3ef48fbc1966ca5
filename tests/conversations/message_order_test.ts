/**
 * Message ids order as messages were taken, whatever the clock of the instance that took them; an
 * application from before conversations existed (no state, no listing entries) gets both with its
 * first message; a purge redacts more messages than one of its atomics holds.
 */
import assert from "node:assert/strict";
import { conversations } from "../../kv/keyspace.ts";
import { setup } from "../helpers.ts";
import { workingService } from "../webhooks/webhook_fixtures.ts";
import { conversation, conversationsOf, say, send, thread } from "./fixtures.ts";

Deno.test("a message taken on an instance whose clock is behind still sorts after the last one", async () => {
  await using svc = await setup();
  let clock = Date.now();
  svc.deps.now = () => clock;
  const { owner, applicant, applicationId } = await conversation(svc);
  const first = await say(svc, owner, applicationId, "first");
  clock -= 60_000; // another instance, a minute behind
  const second = await say(svc, applicant, applicationId, "second");
  const third = await say(svc, owner, applicationId, "third");
  assert.ok(first.id < second.id && second.id < third.id, `${first.id} ${second.id} ${third.id}`);
  assert.deepEqual((await thread(svc, owner, applicationId, 1)).map((m) => m.body), [
    "third",
    "second",
    "first",
  ]);
  assert.equal((await conversationsOf(svc, applicant)).body[0].lastMessage.id, third.id);
});

Deno.test("an application from before conversations gets its state and listing with its first message", async () => {
  await using svc = await setup();
  const { owner, applicant, applicationId } = await conversation(svc);
  // As a store written before conversations: the application alone.
  const state = conversations.state(applicationId);
  for await (const entry of svc.kv.list({ prefix: ["conversations_by_user"] })) {
    await svc.kv.delete(entry.key);
  }
  await svc.kv.delete(state);
  assert.deepEqual((await conversationsOf(svc, owner)).body, []);
  const hello = await say(svc, applicant, applicationId, "hello");
  const [entry] = (await conversationsOf(svc, owner)).body;
  assert.equal(entry.lastMessage.id, hello.id);
  assert.equal(entry.unread, 1);
  assert.equal((await conversationsOf(svc, applicant)).body[0].unread, 0);
});

Deno.test("a purge redacts more messages than one atomic holds, each once", async () => {
  await using svc = await workingService({ settings: { MESSAGES_PER_MINUTE: 1000 } });
  const { owner, applicant, applicationId } = await conversation(svc);
  for (let i = 0; i < 230; i++) {
    await say(svc, i % 10 ? applicant : owner, applicationId, `message ${i}`);
  }
  const deleted = await send(svc, `/v1/users/${applicant.id}`, {
    method: "DELETE",
    token: applicant.token,
  });
  assert.equal(deleted.status, 200);
  await svc.jobs.drain();
  const listed = await thread(svc, owner, applicationId);
  assert.equal(listed.length, 230);
  const kept = listed.filter((m) => m.body !== null);
  assert.equal(kept.length, 23, "the owner's own messages");
  assert.ok(kept.every((m) => m.senderId === owner.id));
  assert.ok(listed.filter((m) => m.body === null).every((m) => m.senderId === null));
});
