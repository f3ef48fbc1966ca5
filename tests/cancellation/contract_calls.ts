/** The contract test's successful calls of cancellation and history (tests/openapi/contract_fixtures.ts). */
import { bearer } from "../helpers.ts";
import { type Calls, keyHeaders, type Session } from "../openapi/contract_session.ts";
import { postTask } from "../tasks/task_fixtures.ts";

/** A task of the session's user with the other user accepted on it; its id. */
async function staffedTask(s: Session): Promise<string> {
  const taskId = (await postTask(s.svc, s.user.token)).id;
  const applied = await s.svc.request(`/api/v1/tasks/${taskId}/applications`, {
    method: "POST",
    headers: bearer(s.other.token),
    json: { message: "Me" },
  });
  const accepted = await s.svc.request(`/api/v1/applications/${(await applied.json()).id}`, {
    method: "PATCH",
    headers: keyHeaders(s),
    json: { status: "accepted" },
  });
  await accepted.body?.cancel();
  return taskId;
}

export const CANCEL_CALLS: Calls = {
  "POST /tasks/{id}/cancel": async (s) => ({
    path: `/api/v1/tasks/${await staffedTask(s)}/cancel`,
    init: {
      method: "POST",
      headers: keyHeaders(s),
      json: { reason: "helper_no_show", note: "No one came" },
    },
  }),
  "GET /tasks/{id}/history": async (s) => ({
    path: `/api/v1/tasks/${await staffedTask(s)}/history?limit=1`,
    init: { headers: bearer(s.other.token) },
  }),
};

/** Valid bodies, so that an unknown task id answers 404. */
export const CANCEL_BODIES: Record<string, unknown> = {
  "POST /tasks/{id}/cancel": { reason: "other" },
};
