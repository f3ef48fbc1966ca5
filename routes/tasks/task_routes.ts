/**
 * The task endpoints' declarations: paths, scopes, parameters and answers, which the OpenAPI
 * document is made of. Their handlers are in tasks.ts; GET /tasks/explore lives in explore.ts.
 */
import { z } from "@hono/zod-openapi";
import { TaskCreate, TaskPatch, TaskStatus } from "../../domain/tasks/task.ts";
import { TaskCreated, TaskDetail, TaskListItem } from "../../domain/tasks/task_view.ts";
import { taskFilterFields } from "../../domain/tasks/task_filter.ts";
import { ConditionalHeaders, notModified, SharedCacheHeaders } from "../http/shared_cache.ts";
import { defineRoute, jsonBody, jsonContent, Message, problems } from "../router/define.ts";
import { cursorPage, CursorQuery, PageHeaders, PageQuery } from "../http/paging.ts";

const TaskId = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const CreateHeaders = z.object({
  "idempotency-key": z.string().min(1).max(255).optional().openapi({
    description: "Retrying with the same key and body within 24 h returns the first response",
  }),
});

const TaskListQuery = CursorQuery.extend(taskFilterFields);

const TaskStatusQuery = PageQuery.extend({
  // Inline rather than a $ref to TaskStatus, so the document keeps the default beside the enum.
  status: z.enum(TaskStatus.options).default("published").openapi({
    param: { description: "The status of the tasks listed; published when absent" },
  }),
  ...taskFilterFields,
});

const TaskCreatedQuery = z.strictObject(taskFilterFields);

export const createTaskRoute = defineRoute({ scope: "tasks:write" }, {
  method: "post",
  path: "/tasks",
  tags: ["Tasks"],
  summary: "Create a task (published at once)",
  request: { headers: CreateHeaders, body: jsonBody(TaskCreate) },
  responses: {
    201: {
      ...jsonContent(TaskCreated, "The new task"),
      headers: {
        Location: { description: "/api/v1/tasks/<id>", schema: { type: "string" as const } },
        "Idempotent-Replayed": {
          description: "`true` when the answer replays the first request of its Idempotency-Key",
          schema: { type: "string" as const, enum: ["true"] },
        },
      },
    },
    ...problems(400, 401, 403, 409, 413, 415, 422, 429),
  },
});

export const listTasksRoute = defineRoute({ scope: "tasks:read" }, {
  method: "get",
  path: "/tasks",
  tags: ["Tasks"],
  summary: "The caller's tasks of every status, newest first (cursor paging)",
  request: { query: TaskListQuery },
  responses: {
    200: cursorPage(TaskListItem, "One page of tasks"),
    ...problems(400, 401, 403, 429),
  },
});

export const statusRoute = defineRoute({ scope: "tasks:read" }, {
  method: "get",
  path: "/tasks/me/status",
  tags: ["Tasks"],
  summary: "The caller's tasks in one status, newest first (page paging)",
  request: { query: TaskStatusQuery },
  responses: {
    200: {
      ...jsonContent(z.array(TaskListItem), "One page of tasks; [] past the end"),
      headers: PageHeaders,
    },
    ...problems(400, 401, 403, 429),
  },
});

export const createdRoute = defineRoute({ scope: "tasks:read" }, {
  method: "get",
  path: "/tasks/me/created",
  tags: ["Tasks"],
  summary: "Every task the caller created and has not deleted, newest first (streamed)",
  request: { query: TaskCreatedQuery },
  responses: {
    200: jsonContent(z.array(TaskListItem), "All of the caller's tasks, as one streamed array"),
    ...problems(400, 401, 403, 429),
  },
});

export const getTaskRoute = defineRoute("public", {
  method: "get",
  path: "/tasks/{id}",
  tags: ["Tasks"],
  summary: "One task: public when published, its creator's alone when completed; when " +
    "cancelled, its creator's and its helpers' accepted at the cancellation",
  description: "Anonymous answers may be kept by shared caches for `PUBLIC_CACHE_SECONDS` " +
    "(default 5): a task completed or deleted meanwhile may still be served that long. " +
    "Answers to a request with a credential are never stored.",
  request: { params: TaskId, headers: ConditionalHeaders },
  responses: {
    200: { ...jsonContent(TaskDetail, "The task"), headers: SharedCacheHeaders },
    ...notModified,
    ...problems(401, 403, 404, 429),
  },
});

export const patchTaskRoute = defineRoute({ scope: "tasks:write" }, {
  method: "patch",
  path: "/tasks/{id}",
  tags: ["Tasks"],
  summary: 'Edit a published task of one\'s own, or complete it with {"status":"completed"}',
  request: { params: TaskId, body: jsonBody(TaskPatch) },
  responses: {
    200: jsonContent(TaskDetail, "The task as changed"),
    ...problems(400, 401, 403, 404, 409, 413, 415, 429),
  },
});

export const deleteTaskRoute = defineRoute({ scope: "tasks:write" }, {
  method: "delete",
  path: "/tasks/{id}",
  tags: ["Tasks"],
  summary: "Soft-delete a task of one's own",
  request: { params: TaskId },
  responses: {
    200: jsonContent(Message, "Task deleted"),
    ...problems(401, 403, 404, 429),
  },
});
