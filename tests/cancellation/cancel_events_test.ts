/**
 * The events of a cancellation and of a helper's withdrawal, each verified with the reference
 * `standardwebhooks` package on a real receiver per account: `task.cancelled` `{task, reason}`
 * to the creator and to every accepted helper, `application.declined` for each pending
 * application, `application.withdrawn` to the creator; and the applications stored as they read.
 */
import assert from "node:assert/strict";
import type { ApplicationRecord } from "../../domain/application.ts";
import { DECLINE_BATCH } from "../../kv/application_declines.ts";
import { changeApplication } from "../../kv/applications.ts";
import { applications } from "../../kv/keyspace.ts";
import { signUp, type TestContext } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { type Receiver, startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, workingService } from "../webhooks/webhook_fixtures.ts";
import { cancel, send, setStatus, staffedTask } from "./fixtures.ts";
import { storedApplicant } from "../applications/application_fixtures.ts";

/** A user whose endpoint (every type) is a receiver of their own, verifying with its secret. */
async function listener(svc: TestContext, stack: AsyncDisposableStack) {
  const user = await signUp(svc);
  const receiver = stack.use(startReceiver());
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  receiver.secrets.push(hook.secret);
  return { user, receiver, secret: hook.secret };
}

function ofType(receiver: Receiver, type: string) {
  return receiver.received.filter((r) => r.event?.type === type);
}

function assertAllSigned(receiver: Receiver, secret: string) {
  for (const r of receiver.received) {
    assert.deepEqual(r.verifiedWith, [secret], `${r.event.type} verifies with the secret`);
    assert.equal(r.id, r.event.id);
  }
}

/** Every application of a task as stored (not as it reads). */
async function stored(kv: Deno.Kv, taskId: string): Promise<ApplicationRecord[]> {
  const found: ApplicationRecord[] = [];
  for await (const e of kv.list<string>({ prefix: applications.byTaskPrefix(taskId) })) {
    found.push((await kv.get<ApplicationRecord>(applications.record(e.value))).value!);
  }
  return found;
}

Deno.test("a cancellation sends task.cancelled to the creator and each accepted helper, declines to the pending", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const [ada, bob, cid, dee] = await Promise.all(
    Array.from({ length: 4 }, () => listener(svc, stack)),
  );
  const { task, acceptedIds, pendingIds } = await staffedTask(svc, {
    owner: ada.user,
    accepted: [bob.user, cid.user],
    pending: [dee.user],
    maxPeople: 3,
  });
  const answer = await cancel(svc, ada.user, task.id, {
    reason: "found_someone_else",
    note: "Sorry",
  });
  assert.equal(answer.status, 200);
  for (const party of [ada, bob, cid]) {
    await party.receiver.waitFor((r) => r.some((x) => x.event?.type === "task.cancelled"));
  }
  await ada.receiver.waitFor((r) => r.some((x) => x.event?.type === "application.declined"));
  await dee.receiver.waitFor((r) => r.some((x) => x.event?.type === "application.declined"));
  await svc.jobs.drain(); // every job due has run: nothing else is on its way

  for (const party of [ada, bob, cid]) {
    const events = ofType(party.receiver, "task.cancelled");
    assert.equal(events.length, 1, "once each");
    assert.equal(events[0].event.data.reason, "found_someone_else");
    assert.deepEqual(events[0].event.data.task, answer.body, "the task as the answer showed it");
  }
  assert.equal(ofType(dee.receiver, "task.cancelled").length, 0, "a pending applicant: no");
  const declined = ofType(dee.receiver, "application.declined");
  assert.deepEqual(declined.map((r) => r.event.data.id), pendingIds);
  assert.equal(declined[0].event.data.updatedAt, answer.body.cancelledAt);
  for (const party of [bob, cid]) {
    const after = party.receiver.received.filter((r) =>
      r.event.type.startsWith("application.") && r.event.createdAt >= answer.body.cancelledAt
    );
    assert.deepEqual(after, [], "a helper hears task.cancelled, no application event");
  }
  for (const party of [ada, bob, cid, dee]) assertAllSigned(party.receiver, party.secret);

  const records = await stored(svc.kv, task.id);
  const byId = new Map(records.map((r) => [r.id, r.status]));
  assert.deepEqual(acceptedIds.map((id) => byId.get(id)), ["cancelled", "cancelled"]);
  assert.deepEqual(pendingIds.map((id) => byId.get(id)), ["declined"]);
  for (const r of records) {
    const marker = await svc.kv.get(applications.active(r.applicantId, r.taskId));
    assert.equal(marker.value, null, "no application of a cancelled task stays active");
  }
});

Deno.test("an accepted helper's withdrawal frees the spot, puts the task back among those with spots, tells the creator", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const [ada, bob] = await Promise.all([listener(svc, stack), listener(svc, stack)]);
  const { task, acceptedIds } = await staffedTask(svc, {
    owner: ada.user,
    accepted: [bob.user],
    pending: [],
    maxPeople: 1,
  });
  const spotted = "/api/v1/tasks/explore?cityName=Paris&hasSpots=true";
  assert.deepEqual((await send(svc, spotted)).body, [], "full: not among those with spots");
  const res = await setStatus(svc, bob.user, acceptedIds[0], "withdrawn");
  assert.equal(res.status, 200);
  assert.equal(res.body.status, "withdrawn");
  const detail = await send(svc, `/api/v1/tasks/${task.id}`);
  assert.equal(detail.body.acceptedCount, 0);
  assert.equal(detail.body.spotsLeft, 1);
  assert.deepEqual((await send(svc, spotted)).body.map((t: { id: string }) => t.id), [task.id]);
  await ada.receiver.waitFor((r) => r.some((x) => x.event?.type === "application.withdrawn"));
  const [event] = ofType(ada.receiver, "application.withdrawn");
  assert.equal(event.event.data.id, acceptedIds[0]);
  assert.equal(event.event.data.status, "withdrawn");
  assertAllSigned(ada.receiver, ada.secret);
});

/** An applicant stored directly: signing up this many through the API would hash as many passwords. */
Deno.test("a task with more applications than a batch: every one settled exactly once, one event each", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const ada = await listener(svc, stack);
  const late = [await listener(svc, stack), await listener(svc, stack)];
  const storedHelpers = DECLINE_BATCH + 1;
  const pending = 40;
  const total = storedHelpers + pending;
  const task = await postTask(svc, ada.user.token, { maxPeople: storedHelpers + late.length });
  const accepted: string[] = [];
  for (let i = 0; i < total; i++) {
    const { id } = await storedApplicant(svc.kv, { taskId: task.id, index: i, at: Date.now() + i });
    const left = storedHelpers - accepted.length;
    if (left > 0 && (i % 6 !== 0 || total - i <= left)) {
      await changeApplication(svc.kv, {
        applicationId: id,
        actorId: ada.user.id,
        to: "accepted",
        at: new Date().toISOString(),
      });
      accepted.push(id);
    }
  }
  // The newest applications, so that the job reaches them in its second batch.
  for (const helper of late) {
    const id = (await send(svc, `/api/v1/tasks/${task.id}/applications`, {
      method: "POST",
      token: helper.user.token,
      json: { message: "Me too" },
    })).body.id;
    assert.equal((await setStatus(svc, ada.user, id, "accepted")).status, 200);
  }
  assert.equal((await cancel(svc, ada.user, task.id)).status, 200);
  for (const helper of late) {
    await helper.receiver.waitFor((r) => r.some((x) => x.event?.type === "task.cancelled"));
  }
  await ada.receiver.waitFor((r) =>
    ofType({ received: r } as Receiver, "application.declined").length === pending
  );
  await svc.jobs.drain();
  const records = await stored(svc.kv, task.id);
  const counts = { cancelled: 0, declined: 0, other: 0 };
  for (const r of records) {
    if (r.status === "cancelled") counts.cancelled++;
    else if (r.status === "declined") counts.declined++;
    else counts.other++;
  }
  assert.deepEqual(counts, { cancelled: storedHelpers + late.length, declined: pending, other: 0 });
  assert.equal(ofType(ada.receiver, "application.declined").length, pending, "each once");
  assert.equal(ofType(ada.receiver, "task.cancelled").length, 1, "the creator's own, once");
  for (const helper of late) {
    assert.equal(ofType(helper.receiver, "task.cancelled").length, 1, "each helper's, once");
    assertAllSigned(helper.receiver, helper.secret);
  }
});
