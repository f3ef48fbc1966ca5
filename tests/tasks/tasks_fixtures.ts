/** Shared by the task tests: the fields of each task shape, and GET, PATCH and DELETE of one task. */
import { bearer, type TestContext } from "../helpers.ts";

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// acceptedCount and spotsLeft: docs/contract.md section 15; cancelledAt, cancellation: section 20.
export const CREATED_FIELDS = [
  "acceptedCount",
  "budget",
  "cancellation",
  "cancelledAt",
  "completedAt",
  "createdAt",
  "currency",
  "description",
  "dueDate",
  "id",
  "location",
  "maxPeople",
  "requirement",
  "spotsLeft",
  "status",
  "title",
  "updatedAt",
];
export const DETAIL_FIELDS = [
  ...CREATED_FIELDS,
  "authorFirstName",
  "authorProfilePic",
  "authorRating",
  "cities",
  "images",
].sort();
export const LIST_FIELDS = [
  "acceptedCount",
  "budget",
  "createdAt",
  "currency",
  "id",
  "spotsLeft",
  "status",
  "title",
];

export async function get(svc: TestContext, id: string, headers: HeadersInit = {}) {
  const res = await svc.request(`/api/v1/tasks/${id}`, { headers });
  return { status: res.status, body: await res.json() };
}

export async function patch(
  svc: TestContext,
  { id, token, json }: { id: string; token: string; json: unknown },
) {
  const res = await svc.request(`/api/v1/tasks/${id}`, {
    method: "PATCH",
    headers: bearer(token),
    json,
  });
  return { status: res.status, body: await res.json() };
}

export async function del(svc: TestContext, id: string, headers: HeadersInit) {
  const res = await svc.request(`/api/v1/tasks/${id}`, { method: "DELETE", headers });
  return { status: res.status, body: await res.json() };
}
