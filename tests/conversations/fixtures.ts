/** Shared by the conversation tests: an application's two parties, and the message calls. */
import assert from "node:assert/strict";
import { signUp, type TestContext } from "../helpers.ts";
import { send, type User } from "../reviews/fixtures.ts";
import { postTask } from "../tasks/task_fixtures.ts";

export { send, type User };

/** A task of a new creator and a new applicant's pending application to it. */
export async function conversation(
  svc: TestContext,
  options: { owner?: User; applicant?: User; title?: string } = {},
) {
  const owner = options.owner ?? await signUp(svc, { firstName: "Olga" });
  const applicant = options.applicant ?? await signUp(svc, { firstName: "Ann" });
  const task = await postTask(svc, owner.token, { title: options.title ?? "Assemble a desk" });
  const applied = await send(svc, `/api/v1/tasks/${task.id}/applications`, {
    method: "POST",
    token: applicant.token,
    json: { message: "I can do it" },
  });
  assert.equal(applied.status, 201, JSON.stringify(applied.body));
  return { owner, applicant, taskId: task.id as string, applicationId: applied.body.id as string };
}

/** Posts `body` in `applicationId`'s conversation as `user`. */
export function post(svc: TestContext, user: User, applicationId: string, body: unknown) {
  return send(svc, `/api/v1/applications/${applicationId}/messages`, {
    method: "POST",
    token: user.token,
    json: body,
  });
}

/** Posts and expects 201; answers the message. */
export async function say(svc: TestContext, user: User, applicationId: string, body: string) {
  const res = await post(svc, user, applicationId, { body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Every message of a thread as `user` sees it, page by page (`limit` a page), newest first. */
export async function thread(svc: TestContext, user: User, applicationId: string, limit = 50) {
  // deno-lint-ignore no-explicit-any
  const all: any[] = [];
  let cursor = "";
  for (;;) {
    const res = await send(
      svc,
      `/api/v1/applications/${applicationId}/messages?limit=${limit}&cursor=${cursor}`,
      { token: user.token },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    all.push(...res.body);
    cursor = res.headers.get("X-Next-Cursor") ?? "";
    if (!cursor) return all;
  }
}

/** `user`'s conversations, first page. */
export async function conversationsOf(svc: TestContext, user: User, query = "") {
  const res = await send(svc, `/api/v1/conversations${query}`, { token: user.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res;
}

/** Moves `user`'s read marker to `upTo`. */
export function markRead(svc: TestContext, user: User, applicationId: string, upTo: unknown) {
  return send(svc, `/api/v1/applications/${applicationId}/read`, {
    method: "PUT",
    token: user.token,
    json: { upTo },
  });
}
