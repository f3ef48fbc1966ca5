/** Projects: each user's own, listed newest first; another user's project is simply not found. */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { notFound } from "../../domain/errors.ts";
import {
  applyProjectUpdate,
  Project,
  ProjectCreate,
  ProjectUpdate,
  toProject,
} from "../../domain/project.ts";
import { cursorPosition, encodeCursor } from "../../kv/cursor.ts";
import {
  createProject,
  deleteProject,
  getProject,
  listProjects,
  updateProject,
} from "../../kv/projects.ts";
import { principalOf } from "../http/authenticate.ts";
import {
  createdContent,
  defineRoute,
  jsonBody,
  jsonContent,
  Message,
  problems,
} from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";

const ProjectId = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const listRoute = defineRoute({ scope: "projects:read" }, {
  method: "get",
  path: "/projects",
  tags: ["Projects"],
  summary: "The caller's projects, newest first",
  request: { query: CursorQuery },
  responses: {
    200: cursorPage(Project, "A page of the caller's projects"),
    ...problems(400, 401, 403, 429),
  },
});

const createRouteDef = defineRoute({ scope: "projects:write" }, {
  method: "post",
  path: "/projects",
  tags: ["Projects"],
  summary: "Create a project",
  request: { body: jsonBody(ProjectCreate) },
  responses: {
    201: createdContent(Project, "The new project"),
    ...problems(400, 401, 403, 413, 415, 429),
  },
});

const getRoute = defineRoute({ scope: "projects:read" }, {
  method: "get",
  path: "/projects/{id}",
  tags: ["Projects"],
  summary: "One of the caller's projects",
  request: { params: ProjectId },
  responses: {
    200: jsonContent(Project, "The project"),
    ...problems(401, 403, 404, 429),
  },
});

const updateRoute = defineRoute({ scope: "projects:write" }, {
  method: "put",
  path: "/projects/{id}",
  tags: ["Projects"],
  summary: "Update a project (partial body)",
  request: { params: ProjectId, body: jsonBody(ProjectUpdate) },
  responses: {
    200: jsonContent(Project, "The updated project"),
    ...problems(400, 401, 403, 404, 413, 415, 429),
  },
});

const deleteRoute = defineRoute({ scope: "projects:write" }, {
  method: "delete",
  path: "/projects/{id}",
  tags: ["Projects"],
  summary: "Delete a project (soft delete)",
  request: { params: ProjectId },
  responses: {
    200: jsonContent(Message, "Project deleted"),
    ...problems(401, 403, 404, 429),
  },
});

export function registerProjects(api: OpenAPIHono<AppEnv>) {
  api.openapi(listRoute, async (c) => {
    const ownerId = principalOf(c).userId;
    const { limit, cursor } = c.req.valid("query");
    const scope = { list: "projects", ownerId };
    const before = await cursorPosition(cursor, scope);
    const page = await listProjects(c.get("deps").kv, {
      ownerId,
      limit,
      before: before ?? undefined,
    });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.projects, 200);
  });

  api.openapi(createRouteDef, async (c) => {
    const { kv, now } = c.get("deps");
    const input = c.req.valid("json");
    const at = new Date(now()).toISOString();
    const project = await createProject(kv, {
      id: crypto.randomUUID(),
      ownerId: principalOf(c).userId,
      name: input.name,
      description: input.description,
      createdAt: at,
      updatedAt: at,
    });
    c.header("Location", `/v1/projects/${project.id}`);
    return c.json(toProject(project), 201);
  });

  api.openapi(getRoute, async (c) => {
    const project = await getProject(
      c.get("deps").kv,
      principalOf(c).userId,
      c.req.valid("param").id,
    );
    if (!project) throw notFound("Project");
    return c.json(toProject(project), 200);
  });

  api.openapi(updateRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const change = c.req.valid("json");
    const at = new Date(now()).toISOString();
    const ref = { ownerId: principalOf(c).userId, projectId: c.req.valid("param").id };
    const updated = await updateProject(kv, ref, (p) => applyProjectUpdate(p, change, at));
    if (!updated) throw notFound("Project");
    return c.json(toProject(updated), 200);
  });

  api.openapi(deleteRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const at = new Date(now()).toISOString();
    const ref = { ownerId: principalOf(c).userId, projectId: c.req.valid("param").id };
    const deleted = await deleteProject(kv, ref, at);
    if (!deleted) throw notFound("Project");
    return c.json({ message: "Project deleted" }, 200);
  });
}
