/**
 * Closing: a declined or withdrawn application, a deleted task, and 14 days after completion
 * (the injected clock moved) close the conversation: a message is then 409 CONVERSATION_CLOSED,
 * nothing of it is written, and both parties still read it.
 */
import assert from "node:assert/strict";
import { CONVERSATION_AFTER_COMPLETION_MS } from "../../domain/conversations/conversation.ts";
import { setup } from "../helpers.ts";
import { complete, relogin } from "../reviews/fixtures.ts";
import { conversation, conversationsOf, post, say, send, thread, type User } from "./fixtures.ts";
import type { TestContext } from "../helpers.ts";

async function assertClosed(svc: TestContext, people: User[], applicationId: string) {
  for (const user of people) {
    const res = await post(svc, user, applicationId, { body: "anyone there?" });
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.code, "CONVERSATION_CLOSED");
    const listed = await thread(svc, user, applicationId);
    assert.deepEqual(listed.map((m) => m.body), ["before"], "readable, and nothing written");
  }
}

for (
  const [what, status, by] of [["declined", "declined", "owner"], [
    "withdrawn",
    "withdrawn",
    "applicant",
  ]] as const
) {
  Deno.test(`an application ${what} closes its conversation`, async () => {
    await using svc = await setup();
    const { owner, applicant, applicationId } = await conversation(svc);
    await say(svc, owner, applicationId, "before");
    const actor = by === "owner" ? owner : applicant;
    const changed = await send(svc, `/api/v1/applications/${applicationId}`, {
      method: "PATCH",
      token: actor.token,
      json: { status },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    await assertClosed(svc, [owner, applicant], applicationId);
  });
}

Deno.test("a deleted task closes its conversations, accepted or pending", async () => {
  await using svc = await setup();
  const first = await conversation(svc);
  const { owner, applicant, applicationId, taskId } = first;
  await say(svc, owner, applicationId, "before");
  const accepted = await send(svc, `/api/v1/applications/${applicationId}`, {
    method: "PATCH",
    token: owner.token,
    json: { status: "accepted" },
  });
  assert.equal(accepted.status, 200);
  const deleted = await send(svc, `/api/v1/tasks/${taskId}`, {
    method: "DELETE",
    token: owner.token,
  });
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  await assertClosed(svc, [owner, applicant], applicationId);
  assert.equal((await conversationsOf(svc, applicant)).body.length, 1, "still listed");
});

Deno.test("a completed task's conversation takes messages for 14 days, then closes", async () => {
  await using svc = await setup();
  let clock = Date.now();
  svc.deps.now = () => clock;
  const { owner, applicant, applicationId, taskId } = await conversation(svc);
  const accepted = await send(svc, `/api/v1/applications/${applicationId}`, {
    method: "PATCH",
    token: owner.token,
    json: { status: "accepted" },
  });
  assert.equal(accepted.status, 200);
  const done = await complete(svc, owner, taskId);
  await say(svc, owner, applicationId, "before");
  const closesAt = Date.parse(done.completedAt) + CONVERSATION_AFTER_COMPLETION_MS;
  clock = closesAt - 1;
  const [o, a] = [await relogin(svc, owner), await relogin(svc, applicant)];
  const last = await say(svc, a, applicationId, "thanks, all done");
  clock = closesAt;
  const late = await post(svc, o, applicationId, { body: "you're welcome" });
  assert.equal(late.status, 409);
  assert.equal(late.body.code, "CONVERSATION_CLOSED");
  const listed = await thread(svc, o, applicationId);
  assert.deepEqual(listed.map((m) => m.id).slice(0, 1), [last.id]);
  assert.equal(listed.length, 2);
});
