/**
 * Application events through webhooks: each write's event reaches both parties' endpoints, signed
 * and verified by the reference `standardwebhooks` package on a real receiver; implied declines
 * follow a task's completion or deletion; refused or failed writes raise nothing.
 */
import assert from "node:assert/strict";
import type { ApplicationRecord } from "../../domain/application.ts";
import { DECLINE_BATCH } from "../../kv/application_declines.ts";
import { createApplication } from "../../kv/applications.ts";
import { bearer, signUp, type TestContext } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { setStatus, storedApplicant, type User } from "./application_fixtures.ts";
import { type Receiver, startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, workingService } from "../webhooks/webhook_fixtures.ts";

/** A user whose endpoint (every type) is a receiver of their own, verifying with its secret. */
async function listener(svc: TestContext, firstName: string, stack: AsyncDisposableStack) {
  const user = await signUp(svc, { firstName });
  const receiver = stack.use(startReceiver());
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  receiver.secrets.push(hook.secret);
  return { user, receiver, secret: hook.secret };
}

async function apply(svc: TestContext, user: User, taskId: string) {
  const res = await svc.request(`/api/v1/tasks/${taskId}/applications`, {
    method: "POST",
    headers: bearer(user.token),
    json: { message: "I can do it", price: 40 },
  });
  assert.equal(res.status, 201);
  return await res.json();
}

/** The application events a receiver got, as [type, application id], sorted (deliveries run
 * concurrently, so their arrival order is not the events' order). */
function applicationEvents(receiver: Receiver): [string, string][] {
  return sorted(
    receiver.received.filter((r) => r.event.type.startsWith("application."))
      .map((r) => [r.event.type, r.event.data.id]),
  );
}

function sorted(pairs: [string, string][]): [string, string][] {
  return [...pairs].sort((a, b) => a.join().localeCompare(b.join()));
}

/** The last event of `type` about application `id` that `receiver` got. */
function lastEvent(receiver: Receiver, type: string, id: string) {
  const found = receiver.received.filter((r) => r.event.type === type && r.event.data.id === id);
  assert.ok(found.length > 0, `${type} for ${id} arrived`);
  return found.at(-1)!;
}

/** Every delivery verified with the receiver's one secret, webhook-id being the event id. */
function assertAllSigned(receiver: Receiver, secret: string) {
  for (const r of receiver.received) {
    assert.deepEqual(r.verifiedWith, [secret], `${r.event.type} verifies with the secret`);
    assert.equal(r.id, r.event.id);
  }
}

/** The applications of a task as its creator's listing shows them, by id. */
async function creatorsView(svc: TestContext, creator: User, taskId: string) {
  const res = await svc.request(`/api/v1/tasks/${taskId}/applications`, {
    headers: bearer(creator.token),
  });
  assert.equal(res.status, 200);
  const items: { id: string }[] = await res.json();
  return new Map(items.map((a) => [a.id, a]));
}

Deno.test("created, accepted, declined and withdrawn reach both parties' endpoints, signed, with the application as the API shows it", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const ada = await listener(svc, "Ada", stack);
  const bob = await listener(svc, "Bob", stack);
  const cid = await listener(svc, "Cid", stack);
  const dee = await listener(svc, "Dee", stack);
  const task = await postTask(svc, ada.user.token, { maxPeople: 2 });

  const accepted = await apply(svc, bob.user, task.id);
  const declined = await apply(svc, cid.user, task.id);
  const withdrawn = await apply(svc, dee.user, task.id);
  assert.equal((await setStatus(svc, ada.user, accepted.id, "accepted")).status, 200);
  assert.equal((await setStatus(svc, ada.user, declined.id, "declined")).status, 200);
  assert.equal((await setStatus(svc, dee.user, withdrawn.id, "withdrawn")).status, 200);

  await ada.receiver.waitFor((r) => applicationEvents({ received: r } as Receiver).length >= 6);
  for (const party of [bob, cid, dee]) {
    await party.receiver.waitFor((r) => applicationEvents({ received: r } as Receiver).length >= 2);
  }
  await svc.jobs.drain(); // every job due has run: nothing else is on its way

  assert.deepEqual(
    applicationEvents(ada.receiver).sort(),
    [
      ["application.accepted", accepted.id],
      ["application.created", accepted.id],
      ["application.created", declined.id],
      ["application.created", withdrawn.id],
      ["application.declined", declined.id],
      ["application.withdrawn", withdrawn.id],
    ].sort(),
    "the task's creator hears every application to the task",
  );
  assert.deepEqual(
    applicationEvents(bob.receiver),
    sorted([
      ["application.created", accepted.id],
      ["application.accepted", accepted.id],
    ]),
    "an applicant hears of their own application only",
  );
  assert.deepEqual(
    applicationEvents(cid.receiver),
    sorted([
      ["application.created", declined.id],
      ["application.declined", declined.id],
    ]),
  );
  assert.deepEqual(
    applicationEvents(dee.receiver),
    sorted([
      ["application.created", withdrawn.id],
      ["application.withdrawn", withdrawn.id],
    ]),
  );
  for (const party of [ada, bob, cid, dee]) assertAllSigned(party.receiver, party.secret);

  const shown = await creatorsView(svc, ada.user, task.id);
  for (
    const [type, app, party] of [
      ["application.accepted", accepted, bob],
      ["application.declined", declined, cid],
      ["application.withdrawn", withdrawn, dee],
    ] as const
  ) {
    assert.deepEqual(lastEvent(ada.receiver, type, app.id).event.data, shown.get(app.id), type);
    assert.deepEqual(lastEvent(party.receiver, type, app.id).event.data, shown.get(app.id), type);
  }
  assert.deepEqual(
    lastEvent(bob.receiver, "application.created", accepted.id).event.data,
    accepted,
  );
});

Deno.test("a refused transition raises no event (TASK_FULL, a change by neither party, a second application)", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const ada = await listener(svc, "Ada", stack);
  const bob = await listener(svc, "Bob", stack);
  const cid = await listener(svc, "Cid", stack);
  const task = await postTask(svc, ada.user.token, { maxPeople: 1 });
  const first = await apply(svc, bob.user, task.id);
  const second = await apply(svc, cid.user, task.id);
  assert.equal((await setStatus(svc, ada.user, first.id, "accepted")).status, 200);

  const full = await setStatus(svc, ada.user, second.id, "accepted");
  assert.equal(full.status, 409);
  assert.equal(full.body.code, "TASK_FULL");
  assert.equal((await setStatus(svc, cid.user, first.id, "withdrawn")).status, 404);
  const again = await svc.request(`/api/v1/tasks/${task.id}/applications`, {
    method: "POST",
    headers: bearer(bob.user.token),
    json: { message: "Me again" },
  });
  assert.equal(again.status, 409);
  // A later write that succeeds: once its event is in, the refused ones would have been too.
  assert.equal((await setStatus(svc, cid.user, second.id, "withdrawn")).status, 200);
  await ada.receiver.waitFor((r) => r.some((x) => x.event.type === "application.withdrawn"));
  await cid.receiver.waitFor((r) => r.some((x) => x.event.type === "application.withdrawn"));
  await svc.jobs.drain(); // every job due has run: nothing else is on its way

  assert.deepEqual(
    applicationEvents(ada.receiver),
    sorted([
      ["application.created", first.id],
      ["application.created", second.id],
      ["application.accepted", first.id],
      ["application.withdrawn", second.id],
    ]),
  );
  assert.deepEqual(
    applicationEvents(bob.receiver),
    sorted([
      ["application.created", first.id],
      ["application.accepted", first.id],
    ]),
  );
  assert.deepEqual(
    applicationEvents(cid.receiver),
    sorted([
      ["application.created", second.id],
      ["application.withdrawn", second.id],
    ]),
  );
});

Deno.test("completing or deleting a task declines its pending applications, each with an application.declined event to both parties", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const ada = await listener(svc, "Ada", stack);
  const bob = await listener(svc, "Bob", stack);
  const cid = await listener(svc, "Cid", stack);
  const completed = await postTask(svc, ada.user.token, { maxPeople: 2 });
  const deleted = await postTask(svc, ada.user.token);
  const kept = await apply(svc, bob.user, completed.id);
  const pending = await apply(svc, cid.user, completed.id);
  const onDeleted = await apply(svc, bob.user, deleted.id);
  assert.equal((await setStatus(svc, ada.user, kept.id, "accepted")).status, 200);

  const done = await svc.request(`/api/v1/tasks/${completed.id}`, {
    method: "PATCH",
    headers: bearer(ada.user.token),
    json: { status: "completed" },
  });
  assert.equal(done.status, 200);
  const gone = await svc.request(`/api/v1/tasks/${deleted.id}`, {
    method: "DELETE",
    headers: bearer(ada.user.token),
  });
  assert.equal(gone.status, 200);

  const declines = (r: Receiver["received"]) =>
    r.filter((x) => x.event.type === "application.declined").length;
  await ada.receiver.waitFor((r) => declines(r) >= 2);
  await bob.receiver.waitFor((r) => declines(r) >= 1);
  await cid.receiver.waitFor((r) => declines(r) >= 1);
  await svc.jobs.drain(); // every job due has run: nothing else is on its way

  const declinedIds = (receiver: Receiver) =>
    applicationEvents(receiver).filter(([type]) => type === "application.declined")
      .map(([, id]) => id).sort();
  assert.deepEqual(declinedIds(ada.receiver), [pending.id, onDeleted.id].sort());
  assert.deepEqual(declinedIds(bob.receiver), [onDeleted.id], "the accepted one stays accepted");
  assert.deepEqual(declinedIds(cid.receiver), [pending.id]);
  for (const party of [ada, bob, cid]) assertAllSigned(party.receiver, party.secret);

  // The data is the application as the applicant's own listing shows it.
  const mine = async (user: User) => {
    const res = await svc.request("/api/v1/applications/me", { headers: bearer(user.token) });
    const items: { id: string; status: string; task: unknown }[] = await res.json();
    return new Map(items.map(({ task: _, ...app }) => [app.id, app]));
  };
  const cidView = (await mine(cid.user)).get(pending.id);
  assert.equal(cidView?.status, "declined");
  assert.deepEqual(lastEvent(cid.receiver, "application.declined", pending.id).event.data, cidView);
  assert.deepEqual(
    lastEvent(ada.receiver, "application.declined", pending.id).event.data,
    cidView,
  );
  const bobView = (await mine(bob.user)).get(onDeleted.id);
  assert.deepEqual(
    lastEvent(bob.receiver, "application.declined", onDeleted.id).event.data,
    bobView,
  );
});

Deno.test("an account deletion's withdrawals reach the task's creator", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const ada = await listener(svc, "Ada", stack);
  const bob = await listener(svc, "Bob", stack);
  const task = await postTask(svc, ada.user.token);
  const app = await apply(svc, bob.user, task.id);
  const res = await svc.request(`/v1/users/${bob.user.id}`, {
    method: "DELETE",
    headers: bearer(bob.user.token),
  });
  assert.equal(res.status, 200);
  await ada.receiver.waitFor((r) => r.some((x) => x.event.type === "application.withdrawn"));
  const event = lastEvent(ada.receiver, "application.withdrawn", app.id).event;
  assert.equal(event.data.status, "withdrawn");
  assertAllSigned(ada.receiver, ada.secret);
});

Deno.test("nothing is sent for an application write whose atomic failed", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const ada = await listener(svc, "Ada", stack);
  const bob = await listener(svc, "Bob", stack);
  const cid = await listener(svc, "Cid", stack);
  const task = await postTask(svc, ada.user.token);
  const app = await apply(svc, bob.user, task.id);
  // The same application id stored again (for another applicant): the atomic's check that no
  // record has this id fails, so the event queued in it never exists.
  const phantom: ApplicationRecord = {
    ...app,
    applicantId: cid.user.id,
    taskOwnerId: "",
    message: "phantom",
    orderKey: "01JD3YQ5G7N9J7M2X4W8T6V0KC",
  };
  await assert.rejects(createApplication(svc.kv, phantom), /changed too often/);
  await ada.receiver.waitFor((r) => r.length >= 1);
  await svc.jobs.drain(); // every job due has run: nothing else is on its way
  assert.deepEqual(applicationEvents(ada.receiver), [["application.created", app.id]]);
  assert.equal(cid.receiver.received.length, 0);
});

Deno.test("the dashboard's webhook event picker offers the application events", async () => {
  await using svc = await workingService();
  const html = await (await svc.request("/dashboard")).text();
  for (const type of ["created", "accepted", "declined", "withdrawn"]) {
    assert.match(html, new RegExp(`name="events" value="application\\.${type}"`), type);
  }
});

Deno.test("a task with more pending applications than one batch raises every implied decline once", async () => {
  await using svc = await workingService();
  await using stack = new AsyncDisposableStack();
  const ada = await listener(svc, "Ada", stack);
  const task = await postTask(svc, ada.user.token);
  const count = DECLINE_BATCH + 5;
  const at = Date.now();
  for (let i = 0; i < count; i++) {
    await storedApplicant(svc.kv, { taskId: task.id, index: i, at: at + i });
  }
  const done = await svc.request(`/api/v1/tasks/${task.id}`, {
    method: "PATCH",
    headers: bearer(ada.user.token),
    json: { status: "completed" },
  });
  assert.equal(done.status, 200);
  const declines = (r: Receiver["received"]) =>
    r.filter((x) => x.event.type === "application.declined").length;
  await ada.receiver.waitFor((r) => declines(r) >= count);
  await svc.jobs.drain(); // every job due has run: nothing else is on its way
  const ids = ada.receiver.received.filter((r) => r.event.type === "application.declined")
    .map((r) => r.event.data.id);
  assert.equal(ids.length, count);
  assert.equal(new Set(ids).size, count, "each application declined once");
  assertAllSigned(ada.receiver, ada.secret);
});
