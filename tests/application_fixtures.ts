/** Shared by the application tests: a signed-up user, and an application's status change. */
import { bearer, type signUp, type TestContext } from "./helpers.ts";

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
