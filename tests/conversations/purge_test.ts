/**
 * An account deleted in the middle of a conversation: the purge removes the bodies and sender of
 * the account's messages, keeps the counterpart's own messages, order and counts, shows the
 * counterpart as deleted, and closes a pending application's conversation (withdrawn); a completed
 * task's stays open to the creator for its 14 days, without the purged side coming back.
 */
import assert from "node:assert/strict";
import { conversations } from "../../kv/keyspace.ts";
import { complete } from "../reviews/fixtures.ts";
import { workingService } from "../webhooks/webhook_fixtures.ts";
import { conversation, conversationsOf, markRead, post, say, send, thread } from "./fixtures.ts";

Deno.test("a purge mid-conversation redacts the account's messages and keeps the counterpart's side", async () => {
  await using svc = await workingService();
  const { owner, applicant, applicationId } = await conversation(svc);
  const asked = await say(svc, applicant, applicationId, "Is the desk heavy?");
  const answered = await say(svc, owner, applicationId, "Quite, bring a friend");
  const last = await say(svc, applicant, applicationId, "Will do, my phone is 555-0100");
  assert.deepEqual((await markRead(svc, owner, applicationId, asked.id)).body, { unread: 1 });

  const deleted = await send(svc, `/v1/users/${applicant.id}`, {
    method: "DELETE",
    token: applicant.token,
  });
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  await svc.jobs.drain();

  const listed = await thread(svc, owner, applicationId);
  assert.deepEqual(listed.map((m) => m.id), [last.id, answered.id, asked.id]);
  for (const gone of [listed[0], listed[2]]) {
    assert.equal(gone.body, null);
    assert.equal(gone.senderId, null);
  }
  assert.deepEqual(listed[1], answered);
  const [entry] = (await conversationsOf(svc, owner)).body;
  assert.deepEqual(entry.counterpart, { id: null, firstName: null });
  assert.equal(entry.unread, 1, "the counts are kept");
  assert.deepEqual(entry.lastMessage, {
    id: last.id,
    senderId: null,
    body: null,
    createdAt: last.createdAt,
  });
  assert.equal(entry.applicationStatus, "withdrawn");
  const closed = await post(svc, owner, applicationId, { body: "anyone?" });
  assert.equal(closed.status, 409);
  assert.equal(closed.body.code, "CONVERSATION_CLOSED");
  const entries = await Array.fromAsync(svc.kv.list({ prefix: [] }));
  const stored = JSON.stringify(entries, (_, v) => typeof v === "bigint" ? String(v) : v);
  assert.ok(!stored.includes("555-0100"), "the body is nowhere in the store");
  assert.ok(!stored.includes("Is the desk heavy?"));
});

Deno.test("after the purge of a completed task's helper the creator may still write, for 14 days", async () => {
  await using svc = await workingService();
  const { owner, applicant, applicationId, taskId } = await conversation(svc);
  const accepted = await send(svc, `/api/v1/applications/${applicationId}`, {
    method: "PATCH",
    token: owner.token,
    json: { status: "accepted" },
  });
  assert.equal(accepted.status, 200);
  await complete(svc, owner, taskId);
  const thanks = await say(svc, applicant, applicationId, "Secret door code 1234");
  const deleted = await send(svc, `/v1/users/${applicant.id}`, {
    method: "DELETE",
    token: applicant.token,
  });
  assert.equal(deleted.status, 200);
  await svc.jobs.drain();
  // The application stays accepted (the task was completed), so the conversation is open.
  const after = await say(svc, owner, applicationId, "Thanks for the help");
  const listed = await thread(svc, owner, applicationId);
  assert.deepEqual(listed.map((m) => [m.id, m.body]), [[after.id, after.body], [thanks.id, null]]);
  const [entry] = (await conversationsOf(svc, owner)).body;
  assert.equal(entry.lastMessage.id, after.id);
  assert.deepEqual(entry.counterpart, { id: null, firstName: null });
  const purgedSide = await Array.fromAsync(
    svc.kv.list({ prefix: conversations.byUserPrefix(applicant.id) }),
  );
  assert.deepEqual(purgedSide, [], "the purged side's listing is not written again");
});
