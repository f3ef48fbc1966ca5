/**
 * A task's history (docs/contract.md section 20): GET /tasks/{id}/history, oldest first, cursor
 * paging, for the task's creator and every applicant it ever accepted.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { notFound } from "../../domain/errors.ts";
import { HistoryEntry } from "../../domain/history/task_history.ts";
import { decodeCursor, encodeCursor } from "../../kv/cursor.ts";
import { wasEverAccepted } from "../../kv/history/task_helpers.ts";
import { readHistory } from "../../kv/history/task_history.ts";
import { getTask } from "../../kv/tasks/tasks.ts";
import { defineRoute, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { principalOf } from "../http/authenticate.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";

const TaskId = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const historyRoute = defineRoute({ scope: "tasks:read" }, {
  method: "get",
  path: "/tasks/{id}/history",
  tags: ["Tasks"],
  summary: "A task's timeline of changes, oldest first (cursor paging)",
  description: "Each entry `{at, type, actorId}` is written in the atomic of the change it " +
    "records: created, edited, application_accepted (actor: the creator), " +
    "application_withdrawn (an accepted applicant's withdrawal; actor: the applicant), " +
    "completed, cancelled. Readable by the task's creator and by every applicant it ever " +
    "accepted; anyone else, and everyone once the task is deleted, gets 404. A task created " +
    "before histories were kept starts with a `created` made from its record.",
  request: { params: TaskId, query: CursorQuery },
  responses: {
    200: cursorPage(HistoryEntry, "One page of the task's history"),
    ...problems(400, 401, 403, 404, 429),
  },
});

const isPosition = (position: string) => /^(0|[1-9][0-9]{0,15})$/.test(position);

export function registerTaskHistory(api: OpenAPIHono<AppEnv>) {
  api.openapi(historyRoute, async (c) => {
    const { kv } = c.get("deps");
    const userId = principalOf(c).userId;
    const taskId = c.req.valid("param").id;
    const { limit, cursor } = c.req.valid("query");
    const task = await getTask(kv, taskId);
    if (!task || task.deletedAt !== null || !await wasEverAccepted(kv, task, userId)) {
      throw notFound("Task");
    }
    const scope = { listing: "task_history", taskId };
    const after = cursor ? Number(await decodeCursor(cursor, scope, isPosition)) : null;
    const page = await readHistory(kv, { task, limit, after });
    setNextPage(c, page.next === null ? null : await encodeCursor(String(page.next), scope));
    return c.json(page.items, 200);
  });
}
