/**
 * Tasks' handlers: create (idempotent on request), the caller's listings, one task, edit and
 * complete, soft delete. Their declarations are in task_routes.ts; explore lives in explore.ts.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import { hasScope } from "../../domain/auth.ts";
import { AppError, notFound } from "../../domain/errors.ts";
import { isPublic, newTask, type TaskRecord } from "../../domain/tasks/task.ts";
import { ownersDeletion, ownersEdit } from "../../domain/tasks/task_changes.ts";
import {
  type TaskDetail,
  type TaskListItem,
  toTaskCreated,
  toTaskDetail,
} from "../../domain/tasks/task_view.ts";
import { taskWriteEffects } from "../../domain/tasks/task_effects.ts";
import { taskFilter, taskFilterScope } from "../../domain/tasks/task_filter.ts";
import { cursorPosition, encodeCursor } from "../../kv/cursor.ts";
import { requestFingerprint } from "../../kv/idempotency.ts";
import { orderKey } from "../../kv/order_key.ts";
import { changeTask, createTask, createTaskOnce, getTask } from "../../kv/tasks/tasks.ts";
import {
  filteredUserTasks,
  listUserTasks,
  pageUserTasksByStatus,
} from "../../kv/tasks/task_listings.ts";
import { maySee } from "../../kv/history/task_helpers.ts";
import { authorOf, ownAuthor } from "../reviews/author.ts";
import { JSON_UTF8, sharedAnswer } from "../http/shared_cache.ts";
import { principalOf } from "../http/authenticate.ts";
import type { AppEnv, Deps } from "../router/env.ts";
import { streamJsonArray } from "../http/json_stream.ts";
import { setNextPage, setPageLinks } from "../http/paging.ts";
import {
  createdRoute,
  createTaskRoute,
  deleteTaskRoute,
  getTaskRoute,
  listTasksRoute,
  patchTaskRoute,
  statusRoute,
} from "./task_routes.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The single-task shape with its author, read through the user cache: a change to the author's
 * profile, or their account's deletion (which hides the task), shows on this instance at once
 * and on every other within a second, as a revoked API key does.
 */
async function detailOf(deps: Deps, task: TaskRecord) {
  const author = await authorOf(deps, task.userId);
  if (!author) throw notFound("Task");
  return toTaskDetail(task, author);
}

/** Registers every task endpoint except explore (`routes/tasks/explore.ts`). */
export function registerTasks(api: OpenAPIHono<AppEnv>) {
  api.openapi(createTaskRoute, async (c) => {
    const deps = c.get("deps");
    const userId = principalOf(c).userId;
    const input = c.req.valid("json");
    const idempotencyKey = c.req.valid("header")["idempotency-key"];
    const now = deps.now();
    const id = crypto.randomUUID();
    const task = newTask(input, { id, userId, orderKey: orderKey(now, id) }, iso(now));
    let response = { body: toTaskCreated(task), location: `/api/v1/tasks/${id}` };
    const effects = { now, ...taskWriteEffects(null, task, await ownAuthor(deps, userId)) };
    if (idempotencyKey === undefined) {
      await createTask(deps.kv, task, effects);
    } else {
      const fingerprint = await requestFingerprint(input);
      const request = { userId, key: idempotencyKey, fingerprint, now, effects };
      const result = await createTaskOnce(deps.kv, task, { request, response });
      response = result.response;
      if (result.replayed) c.header("Idempotent-Replayed", "true");
    }
    c.header("Location", response.location);
    return c.json(response.body, 201);
  });

  api.openapi(listTasksRoute, async (c) => {
    const { kv } = c.get("deps");
    const query = c.req.valid("query");
    const listing = { userId: principalOf(c).userId, filter: taskFilter(query) };
    const scope = { listing: "tasks", userId: listing.userId, ...taskFilterScope(listing.filter) };
    const after = await cursorPosition(query.cursor, scope);
    const page = await listUserTasks(kv, { ...listing, limit: query.limit, after });
    setNextPage(c, page.nextAfter ? await encodeCursor(page.nextAfter, scope) : null);
    return c.json(page.items, 200);
  });

  api.openapi(statusRoute, async (c) => {
    const { kv } = c.get("deps");
    const userId = principalOf(c).userId;
    const query = c.req.valid("query");
    const { status, page, limit } = query;
    const filter = taskFilter(query);
    const { items, total } = await pageUserTasksByStatus(kv, {
      userId,
      filter,
      status,
      page,
      limit,
    });
    setPageLinks(c, { page, limit, total });
    return c.json(items, 200);
  });

  api.openapi(createdRoute, (c) => {
    const { kv, log } = c.get("deps");
    const requestId = c.get("requestId");
    const listing = { userId: principalOf(c).userId, filter: taskFilter(c.req.valid("query")) };
    // The listing is read only for GET: a HEAD must not read it.
    return streamJsonArray<TaskListItem>(
      c.req.method,
      () => filteredUserTasks(kv, listing),
      (error) => log.error("task stream failed", { requestId, error: (error as Error)?.message }),
    );
  });

  api.openapi(getTaskRoute, async (c) => {
    const deps = c.get("deps");
    const principal = c.get("principal");
    const task = await getTask(deps.kv, c.req.valid("param").id);
    if (!task || !await maySee(deps.kv, task, principal?.userId ?? null)) throw notFound("Task");
    if (!isPublic(task) && principal && !hasScope(principal, "tasks:read")) {
      throw new AppError(
        "SCOPE_INSUFFICIENT",
        "This API key lacks the scope tasks:read",
        { scope: "tasks:read" },
      );
    }
    const body = JSON.stringify(await detailOf(deps, task));
    const answer = sharedAnswer(c, { body, contentType: JSON_UTF8 });
    return answer as unknown as TypedResponse<TaskDetail, 200>;
  });

  api.openapi(patchTaskRoute, async (c) => {
    const deps = c.get("deps");
    const userId = principalOf(c).userId;
    const patch = c.req.valid("json");
    const task = await changeTask(deps.kv, {
      taskId: c.req.valid("param").id,
      change: ownersEdit({ userId, at: iso(deps.now()) }, patch),
      effects: { now: deps.now(), rule: taskWriteEffects, context: await ownAuthor(deps, userId) },
      owner: userId,
    });
    return c.json(await detailOf(deps, task), 200);
  });

  api.openapi(deleteTaskRoute, async (c) => {
    const deps = c.get("deps");
    const userId = principalOf(c).userId;
    await changeTask(deps.kv, {
      taskId: c.req.valid("param").id,
      change: ownersDeletion({ userId, at: iso(deps.now()) }),
      effects: { now: deps.now(), rule: taskWriteEffects, context: await ownAuthor(deps, userId) },
      owner: userId,
    });
    return c.json({ message: "Task deleted" }, 200);
  });
}
