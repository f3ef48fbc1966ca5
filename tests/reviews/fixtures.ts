/** Shared by the review tests: a completed task with its people, and the review calls. */
import assert from "node:assert/strict";
import { bearer, signUp, type TestContext } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";

export type User = Awaited<ReturnType<typeof signUp>>;

/** JSON over the test app: the status and the parsed body. */
export async function send(
  svc: TestContext,
  path: string,
  init: { method?: string; token?: string; json?: unknown; headers?: HeadersInit } = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers = new Headers(init.headers);
  if (init.token) { for (const [k, v] of Object.entries(bearer(init.token))) headers.set(k, v); }
  const res = await svc.request(path, { method: init.method ?? "GET", headers, json: init.json });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** `applicant` applies to `taskId` and `owner` accepts; returns the application's id. */
export async function acceptApplicant(
  svc: TestContext,
  people: { owner: User; applicant: User; taskId: string },
): Promise<string> {
  const applied = await send(svc, `/api/v1/tasks/${people.taskId}/applications`, {
    method: "POST",
    token: people.applicant.token,
    json: { message: "I can do it" },
  });
  assert.equal(applied.status, 201, JSON.stringify(applied.body));
  const accepted = await send(svc, `/api/v1/applications/${applied.body.id}`, {
    method: "PATCH",
    token: people.owner.token,
    json: { status: "accepted" },
  });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  return applied.body.id;
}

/** Completes `taskId` as its owner. */
export async function complete(svc: TestContext, owner: User, taskId: string) {
  const done = await send(svc, `/api/v1/tasks/${taskId}`, {
    method: "PATCH",
    token: owner.token,
    json: { status: "completed" },
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  return done.body;
}

/** A task of `owner` (new when absent) with `applicants` accepted people, then completed. */
export async function completedTask(
  svc: TestContext,
  options: { applicants?: number; owner?: User; completed?: boolean } = {},
) {
  const owner = options.owner ?? await signUp(svc, { firstName: "Olga" });
  const count = options.applicants ?? 1;
  const task = await postTask(svc, owner.token, { maxPeople: Math.max(count, 1) });
  const applicants: User[] = [];
  for (let i = 0; i < count; i++) {
    const applicant = await signUp(svc, { firstName: `Ann${i}` });
    await acceptApplicant(svc, { owner, applicant, taskId: task.id });
    applicants.push(applicant);
  }
  if (options.completed !== false) await complete(svc, owner, task.id);
  return { owner, applicants, taskId: task.id as string };
}

/** Posts a review of `revieweeId` on `taskId` as `reviewer`. */
export function review(
  svc: TestContext,
  reviewer: User,
  body: { taskId: string; revieweeId: string; rating: number; comment?: string },
) {
  const { taskId, ...json } = body;
  return send(svc, `/api/v1/tasks/${taskId}/reviews`, {
    method: "POST",
    token: reviewer.token,
    json,
  });
}

/** The public listing of the reviews about `userId` (anonymous). */
export async function reviewsAbout(svc: TestContext, userId: string, query = "") {
  const res = await send(svc, `/api/v1/users/${userId}/reviews${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res;
}

/** The rating on `user`'s own profile. */
export async function ratingOf(svc: TestContext, user: User) {
  const res = await send(svc, `/v1/users/${user.id}`, { token: user.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.rating;
}

/** A fresh session for `user` (after the clock moved past the old one's expiry). */
export async function relogin(svc: TestContext, user: User): Promise<User> {
  const login = await send(svc, "/v1/auth/token", {
    method: "POST",
    json: { email: user.email, password: user.password },
  });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  return { ...user, token: login.body.token };
}
