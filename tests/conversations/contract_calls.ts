/** The contract test's successful calls of the conversation operations (tests/openapi/contract_fixtures.ts). */
import { bearer } from "../helpers.ts";
import { type Calls, keyHeaders, type Session } from "../openapi/contract_session.ts";
import { postTask } from "../tasks/task_fixtures.ts";

/** The other user's application to a task of the session's user, with one message; their ids. */
async function withMessage(s: Session): Promise<{ applicationId: string; messageId: string }> {
  const taskId = (await postTask(s.svc, s.user.token)).id;
  const applied = await s.svc.request(`/api/v1/tasks/${taskId}/applications`, {
    method: "POST",
    headers: bearer(s.other.token),
    json: { message: "Me" },
  });
  const applicationId = (await applied.json()).id;
  const sent = await s.svc.request(`/api/v1/applications/${applicationId}/messages`, {
    method: "POST",
    headers: bearer(s.other.token),
    json: { body: "When shall I come?" },
  });
  return { applicationId, messageId: (await sent.json()).id };
}

export const CONVERSATION_CALLS: Calls = {
  "POST /applications/{id}/messages": async (s) => ({
    path: `/api/v1/applications/${(await withMessage(s)).applicationId}/messages`,
    init: { method: "POST", headers: keyHeaders(s), json: { body: "Saturday at ten" } },
  }),
  "GET /applications/{id}/messages": async (s) => ({
    path: `/v1/applications/${(await withMessage(s)).applicationId}/messages?limit=1`,
    init: { headers: keyHeaders(s) },
  }),
  "GET /conversations": async (s) => {
    await withMessage(s);
    return { path: "/api/v1/conversations?limit=1", init: { headers: keyHeaders(s) } };
  },
  "PUT /applications/{id}/read": async (s) => {
    const { applicationId, messageId } = await withMessage(s);
    return {
      path: `/api/v1/applications/${applicationId}/read`,
      init: { method: "PUT", headers: keyHeaders(s), json: { upTo: messageId } },
    };
  },
};

/** Valid bodies, so that an unknown application id answers 404. */
export const CONVERSATION_BODIES: Record<string, unknown> = {
  "POST /applications/{id}/messages": { body: "Hello" },
  "PUT /applications/{id}/read": { upTo: "01JD0000000000000000000000" },
};
