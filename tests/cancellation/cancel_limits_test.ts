/**
 * The cancellation's atomic holds no per-application write: at the largest maxPeople, every spot
 * taken and more pending, it is the same size as a cancellation of a task without
 * applications, under every KV limit (the test store refuses any atomic over them).
 */
import assert from "node:assert/strict";
import { changeApplication } from "../../kv/applications.ts";
import { type AtomicSize, KV_LIMITS, limitGuard } from "../../kv/store/limits.ts";
import { setup, signUp, type TestContext } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { cancel } from "./fixtures.ts";
import { storedApplicant } from "../applications/application_fixtures.ts";

/** Stores `count` applications to `taskId` of fresh accounts, the first `accepted` accepted. */
async function applicants(
  svc: TestContext,
  at: { taskId: string; ownerId: string; count: number; accepted: number },
) {
  for (let i = 0; i < at.count; i++) {
    const { id } = await storedApplicant(svc.kv, { taskId: at.taskId, index: i, message: "Me" });
    if (i < at.accepted) {
      await changeApplication(svc.kv, {
        applicationId: id,
        actorId: at.ownerId,
        to: "accepted",
        at: new Date().toISOString(),
      });
    }
  }
}

Deno.test("a cancellation at maxPeople 1,000 with every spot taken and more pending is one small atomic", async () => {
  let recording: AtomicSize[] | null = null;
  const kv = limitGuard(await Deno.openKv(":memory:"), (size) => recording?.push(size));
  await using svc = await setup({ kv });
  const ada = await signUp(svc);
  const sizes: AtomicSize[] = [];
  for (const [accepted, pending] of [[0, 0], [1000, 200]]) {
    const task = await postTask(svc, ada.token, { maxPeople: 1000 });
    await applicants(svc, {
      taskId: task.id,
      ownerId: ada.id,
      count: accepted + pending,
      accepted,
    });
    recording = [];
    const res = await cancel(svc, ada, task.id);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.acceptedCount, accepted);
    const written = recording.filter((a) => a.written.some((k) => k[0] === "task_history"));
    assert.equal(written.length, 1, "one atomic");
    sizes.push(written[0]);
    recording = null;
  }
  const [empty, full] = sizes;
  assert.equal(full.mutations, empty.mutations, "no write per application");
  assert.equal(full.checks, empty.checks);
  assert.ok(full.checks <= KV_LIMITS.checks && full.mutations <= 100, JSON.stringify(full));
  assert.ok(full.totalBytes < 64 * 1024, `${full.totalBytes} bytes`);
  kv.close();
});
