/**
 * Applications (docs/contract.md section 15): apply to a task, the creator's listing of a task's
 * applications, the applicant's own listing, and status changes (accept, decline, withdraw).
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  Application,
  ApplicationCreate,
  ApplicationPatch,
  type ApplicationRecord,
  MyApplication,
  toApplication,
  toTaskSummary,
} from "../../domain/application.ts";
import { notFound } from "../../domain/errors.ts";
import {
  changeApplication,
  createApplication,
  listTaskApplications,
  listUserApplications,
} from "../../kv/applications.ts";
import { cursorPosition, encodeCursor } from "../../kv/cursor.ts";
import { orderKey } from "../../kv/order_key.ts";
import { getTask } from "../../kv/tasks/tasks.ts";
import { principalOf } from "../http/authenticate.ts";
import { defineRoute, jsonBody, jsonContent, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";

const IdParam = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const applyRoute = defineRoute({ scope: "applications:write" }, {
  method: "post",
  path: "/tasks/{id}/applications",
  tags: ["Applications"],
  summary: "Apply to a published task of someone else",
  description: "One active (pending or accepted) application per user and task: a second is " +
    "409 ALREADY_APPLIED; after a decline, any new application to the task is 409 " +
    "APPLICATION_DECLINED. A task the caller cannot see is 404; one's own task is 403.",
  request: { params: IdParam, body: jsonBody(ApplicationCreate) },
  responses: {
    201: jsonContent(Application, "The new application, pending"),
    ...problems(400, 401, 403, 404, 409, 413, 415, 429),
  },
});

const taskApplicationsRoute = defineRoute({ scope: "applications:read" }, {
  method: "get",
  path: "/tasks/{id}/applications",
  tags: ["Applications"],
  summary: "The applications to a task of one's own, newest first (cursor paging)",
  description: "Only the task's creator may list them; anyone else gets 404.",
  request: { params: IdParam, query: CursorQuery },
  responses: {
    200: cursorPage(Application, "One page of the task's applications"),
    ...problems(400, 401, 403, 404, 429),
  },
});

const myApplicationsRoute = defineRoute({ scope: "applications:read" }, {
  method: "get",
  path: "/applications/me",
  tags: ["Applications"],
  summary: "The caller's own applications with a summary of each task, newest first",
  request: { query: CursorQuery },
  responses: {
    200: cursorPage(MyApplication, "One page of the caller's applications"),
    ...problems(400, 401, 403, 429),
  },
});

const patchApplicationRoute = defineRoute({ scope: "applications:write" }, {
  method: "patch",
  path: "/applications/{id}",
  tags: ["Applications"],
  summary: "Accept or decline (the task's creator), or withdraw (the applicant)",
  description: "The creator accepts or declines a pending application, or declines an " +
    "accepted one; the applicant withdraws a pending or accepted one; only while the task is " +
    "published. Any other change is 409 INVALID_TRANSITION; an acceptance past maxPeople is 409 " +
    "TASK_FULL. Anyone but the two parties gets 404. An accepted application's withdrawal (or " +
    "decline) frees its spot at once, exact under any concurrency: the task is back under " +
    "hasSpots=true, and the withdrawal is in the task's history. A cancelled task's applications " +
    "read declined (pending) or cancelled (accepted) and move no more.",
  request: { params: IdParam, body: jsonBody(ApplicationPatch) },
  responses: {
    200: jsonContent(Application, "The application as changed"),
    ...problems(400, 401, 403, 404, 409, 413, 415, 429),
  },
});

const iso = (ms: number) => new Date(ms).toISOString();

export function registerApplications(api: OpenAPIHono<AppEnv>) {
  api.openapi(applyRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const input = c.req.valid("json");
    const at = now();
    const id = crypto.randomUUID();
    const record: ApplicationRecord = {
      id,
      taskId: c.req.valid("param").id,
      // Set from the task as read inside the application's atomic.
      taskOwnerId: "",
      applicantId: principalOf(c).userId,
      message: input.message,
      price: input.price ?? null,
      status: "pending",
      createdAt: iso(at),
      updatedAt: iso(at),
      orderKey: orderKey(at, id),
    };
    const stored = await createApplication(kv, record);
    return c.json(toApplication(stored), 201);
  });

  api.openapi(taskApplicationsRoute, async (c) => {
    const { kv } = c.get("deps");
    const userId = principalOf(c).userId;
    const taskId = c.req.valid("param").id;
    const { limit, cursor } = c.req.valid("query");
    const task = await getTask(kv, taskId);
    if (!task || task.deletedAt !== null || task.userId !== userId) throw notFound("Task");
    const scope = { listing: "task_applications", taskId };
    const before = await cursorPosition(cursor, scope);
    const page = await listTaskApplications(kv, {
      task,
      limit,
      before: before ?? undefined,
    });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.items.map(toApplication), 200);
  });

  api.openapi(myApplicationsRoute, async (c) => {
    const { kv } = c.get("deps");
    const userId = principalOf(c).userId;
    const { limit, cursor } = c.req.valid("query");
    const scope = { listing: "my_applications", userId };
    const before = await cursorPosition(cursor, scope);
    const page = await listUserApplications(kv, {
      userId,
      limit,
      before: before ?? undefined,
    });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    const items = page.items.map(({ application, task }) => ({
      ...toApplication(application),
      task: toTaskSummary(task),
    }));
    return c.json(items, 200);
  });

  api.openapi(patchApplicationRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const next = await changeApplication(kv, {
      applicationId: c.req.valid("param").id,
      actorId: principalOf(c).userId,
      to: c.req.valid("json").status,
      at: iso(now()),
    });
    return c.json(toApplication(next), 200);
  });
}
