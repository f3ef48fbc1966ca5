/** Shared by the cancellation tests: a task with its people, and the calls they make. */
import assert from "node:assert/strict";
import { signUp, type TestContext } from "../helpers.ts";
import { send, type User } from "../reviews/fixtures.ts";
import { postTask } from "../tasks/task_fixtures.ts";

export { send, type User };

/** POSTs a cancellation as `user`. */
export function cancel(
  svc: TestContext,
  user: User,
  taskId: string,
  json: unknown = { reason: "no_longer_needed" },
) {
  return send(svc, `/api/v1/tasks/${taskId}/cancel`, { method: "POST", token: user.token, json });
}

/** `user` applies to `taskId`; returns the application's id. */
export async function applyTo(svc: TestContext, user: User, taskId: string): Promise<string> {
  const res = await send(svc, `/api/v1/tasks/${taskId}/applications`, {
    method: "POST",
    token: user.token,
    json: { message: "I can do it" },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

/** PATCHes an application's status as `user`. */
export function setStatus(svc: TestContext, user: User, applicationId: string, status: string) {
  return send(svc, `/api/v1/applications/${applicationId}`, {
    method: "PATCH",
    token: user.token,
    json: { status },
  });
}

/** A task of `owner` for `maxPeople`, with `accepted` helpers accepted and `pending` applying. */
export async function staffedTask(
  svc: TestContext,
  people: { owner: User; accepted: User[]; pending: User[]; maxPeople?: number },
) {
  const maxPeople = people.maxPeople ?? Math.max(1, people.accepted.length + 1);
  // deno-lint-ignore no-explicit-any
  const task: any = await postTask(svc, people.owner.token, { maxPeople });
  const acceptedIds: string[] = [];
  for (const helper of people.accepted) {
    const id = await applyTo(svc, helper, task.id);
    assert.equal((await setStatus(svc, people.owner, id, "accepted")).status, 200);
    acceptedIds.push(id);
  }
  const pendingIds: string[] = [];
  for (const applicant of people.pending) pendingIds.push(await applyTo(svc, applicant, task.id));
  return { task, acceptedIds, pendingIds };
}

/** `n` fresh users. */
export function users(svc: TestContext, n: number): Promise<User[]> {
  return Promise.all(Array.from({ length: n }, () => signUp(svc)));
}
