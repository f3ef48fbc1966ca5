/**
 * Cancelling a task (docs/contract.md section 20): POST /tasks/{id}/cancel by its creator. The
 * task's own atomic is the whole cancellation (kv/tasks/tasks.ts); docs/cancellation.md says what
 * follows from it and how.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { CancelRequest } from "../../domain/cancellation/cancel_shapes.ts";
import { ownersCancellation } from "../../domain/tasks/task_changes.ts";
import { TaskDetail, toTaskDetail } from "../../domain/tasks/task_view.ts";
import { changeTask } from "../../kv/tasks/tasks.ts";
import { defineRoute, jsonBody, jsonContent, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { principalOf } from "../http/authenticate.ts";
import { ownAuthor } from "../reviews/author.ts";
import { taskWriteEffects } from "../../domain/tasks/task_effects.ts";

const TaskId = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const cancelRoute = defineRoute({ scope: "tasks:write" }, {
  method: "post",
  path: "/tasks/{id}/cancel",
  tags: ["Tasks"],
  summary: "Cancel a published task of one's own",
  description: "The task becomes `cancelled` with `cancelledAt` and `cancellation`, and leaves " +
    "explore, alerts and every listing of published tasks at once. From the same commit its " +
    "pending applications read `declined` and its accepted ones `cancelled`; each accepted " +
    "helper then gets `task.cancelled` (a background job stores the applications and raises " +
    "the events, so a task with any number of applications cancels in one atomic). A task that " +
    "is not published is 409 INVALID_TRANSITION; another user's published task 403; a task " +
    "the caller cannot see 404. Afterwards only the creator and the helpers accepted at the " +
    "cancellation see it.",
  request: { params: TaskId, body: jsonBody(CancelRequest) },
  responses: {
    200: jsonContent(TaskDetail, "The task as cancelled"),
    ...problems(400, 401, 403, 404, 409, 413, 415, 429),
  },
});

const iso = (ms: number) => new Date(ms).toISOString();

export function registerCancellation(api: OpenAPIHono<AppEnv>) {
  api.openapi(cancelRoute, async (c) => {
    const deps = c.get("deps");
    const userId = principalOf(c).userId;
    const body = c.req.valid("json");
    const task = await changeTask(deps.kv, {
      taskId: c.req.valid("param").id,
      change: ownersCancellation({ userId, at: iso(deps.now()) }, body),
      effects: { now: deps.now(), rule: taskWriteEffects, context: await ownAuthor(deps, userId) },
      owner: userId,
    });
    return c.json(toTaskDetail(task, await ownAuthor(deps, userId)), 200);
  });
}
