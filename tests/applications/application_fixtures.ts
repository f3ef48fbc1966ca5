/** Shared by the application tests: a signed-up user, and an application's status change. */
import { bearer, type signUp, type TestContext } from "../helpers.ts";

export type User = Awaited<ReturnType<typeof signUp>>;

/** PATCHes an application's status as `user`; answers the status code and the body. */
export async function setStatus(
  svc: TestContext,
  user: User,
  applicationId: string,
  status: string,
) {
  const res = await svc.request(`/api/v1/applications/${applicationId}`, {
    method: "PATCH",
    headers: bearer(user.token),
    json: { status },
  });
  return { status: res.status, body: await res.json() };
}

/** POSTs an application to `taskId` as `user`; answers the status code and the body. */
export async function apply(
  svc: TestContext,
  user: User,
  taskId: string,
  json: unknown = { message: "I can do it" },
  prefix = "/api/v1",
) {
  const res = await svc.request(`${prefix}/tasks/${taskId}/applications`, {
    method: "POST",
    headers: bearer(user.token),
    json,
  });
  return { status: res.status, body: await res.json() };
}

/** GETs `path` as `user`: status, body and headers. */
export async function getJson(svc: TestContext, path: string, user: User) {
  const res = await svc.request(path, { headers: bearer(user.token) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}
