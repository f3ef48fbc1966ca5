/** Shared by the application tests: a signed-up user, and an application's status change. */
import { createApplication } from "../../kv/applications.ts";
import { orderKey } from "../../kv/order_key.ts";
import { createUser } from "../../kv/users/users.ts";
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

/**
 * Stores a pending application to `taskId` from a fresh account, written straight to KV: signing
 * up many applicants through the API would hash as many passwords. Its time is `at` (default
 * now); `index` keeps the emails apart. Answers the application's id and its applicant's.
 */
export async function storedApplicant(
  kv: Deno.Kv,
  { taskId, index, at = Date.now(), message = "I can do it" }: {
    taskId: string;
    index: number;
    at?: number;
    message?: string;
  },
): Promise<{ id: string; applicantId: string }> {
  const applicantId = crypto.randomUUID();
  const iso = new Date(at).toISOString();
  await createUser(kv, {
    id: applicantId,
    email: `applicant${index}-${applicantId}@example.com`,
    firstName: "Applicant",
    lastName: null,
    profilePic: null,
    passwordHash: "unused",
    createdAt: iso,
    updatedAt: iso,
    deletedAt: null,
  });
  const id = crypto.randomUUID();
  await createApplication(kv, {
    id,
    taskId,
    taskOwnerId: "",
    applicantId,
    message,
    price: null,
    status: "pending",
    createdAt: iso,
    updatedAt: iso,
    orderKey: orderKey(at, id),
  });
  return { id, applicantId };
}
