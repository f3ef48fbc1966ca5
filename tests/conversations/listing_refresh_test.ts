/**
 * The conversations page shows the application's status and the task's title as they stand: a
 * status change or a title edit writes a job in its own atomic, which rewrites both parties'
 * entries without undoing a message or a read marker.
 */
import assert from "node:assert/strict";
import { workingService } from "../webhooks/webhook_fixtures.ts";
import { until } from "../wait.ts";
import { conversation, conversationsOf, say, send } from "./fixtures.ts";

Deno.test("an accepted application and an edited title reach both parties' conversation entries", async () => {
  await using svc = await workingService();
  const { owner, applicant, applicationId, taskId } = await conversation(svc);
  const hello = await say(svc, applicant, applicationId, "hello");
  const accepted = await send(svc, `/api/v1/applications/${applicationId}`, {
    method: "PATCH",
    token: owner.token,
    json: { status: "accepted" },
  });
  assert.equal(accepted.status, 200);
  const edited = await send(svc, `/api/v1/tasks/${taskId}`, {
    method: "PATCH",
    token: owner.token,
    json: { title: "Assemble two desks" },
  });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  await svc.jobs.drain();
  for (const user of [owner, applicant]) {
    await until(async () => {
      const [entry] = (await conversationsOf(svc, user)).body;
      return entry.applicationStatus === "accepted" && entry.taskTitle === "Assemble two desks";
    }, { what: "the refreshed entry" });
  }
  const [entry] = (await conversationsOf(svc, owner)).body;
  assert.equal(entry.unread, 1, "the refresh kept the unread count");
  assert.equal(entry.lastMessage.id, hello.id);
});
