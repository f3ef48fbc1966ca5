/** The contract test's successful calls of the review operations (tests/openapi/contract_fixtures.ts). */
import { bearer } from "../helpers.ts";
import { type Calls, keyHeaders, type Session } from "../openapi/contract_session.ts";
import { postTask } from "../tasks/task_fixtures.ts";

/** A completed task of the session's user, the other user accepted on it; its id. */
async function completedTask(s: Session): Promise<string> {
  const taskId = (await postTask(s.svc, s.user.token)).id;
  const applied = await s.svc.request(`/api/v1/tasks/${taskId}/applications`, {
    method: "POST",
    headers: bearer(s.other.token),
    json: { message: "Me" },
  });
  const changes = [
    [`/api/v1/applications/${(await applied.json()).id}`, "accepted"],
    [`/api/v1/tasks/${taskId}`, "completed"],
  ];
  for (const [path, status] of changes) {
    const res = await s.svc.request(path, {
      method: "PATCH",
      headers: keyHeaders(s),
      json: { status },
    });
    await res.body?.cancel();
  }
  return taskId;
}

/** Both reviews of a completed task, so that they show. */
async function reviewedTask(s: Session) {
  const taskId = await completedTask(s);
  const both: [HeadersInit, string][] = [
    [keyHeaders(s), s.other.id],
    [bearer(s.other.token), s.user.id],
  ];
  for (const [headers, revieweeId] of both) {
    const res = await s.svc.request(`/api/v1/tasks/${taskId}/reviews`, {
      method: "POST",
      headers,
      json: { revieweeId, rating: 4 },
    });
    await res.body?.cancel();
  }
}

export const REVIEW_CALLS: Calls = {
  "POST /tasks/{id}/reviews": async (s) => ({
    path: `/api/v1/tasks/${await completedTask(s)}/reviews`,
    init: {
      method: "POST",
      headers: keyHeaders(s),
      json: { revieweeId: s.other.id, rating: 5, comment: "Quick and careful" },
    },
  }),
  "GET /users/{id}/reviews": async (s) => {
    await reviewedTask(s);
    return { path: `/api/v1/users/${s.other.id}/reviews?limit=1` };
  },
  "GET /reviews/me": async (s) => {
    await reviewedTask(s);
    return { path: "/v1/reviews/me?limit=1", init: { headers: keyHeaders(s) } };
  },
};

/** Valid bodies, so that an unknown task id answers 404. */
export const REVIEW_BODIES: Record<string, unknown> = {
  "POST /tasks/{id}/reviews": { revieweeId: "00000000-0000-4000-8000-000000000000", rating: 3 },
};
