/**
 * Builds the HTTP app from its dependencies: app-wide middleware, every resource under both
 * `/api/v1` and `/v1`, and the 404/405 and error mappings.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { AppError } from "../domain/errors.ts";
import { apiCors } from "./cors.ts";
import { registerDashboard } from "./dashboard/register.tsx";
import { newRouter, validationHook } from "./define.ts";
import type { AppEnv, Deps } from "./env.ts";
import { registerHealth } from "./health.ts";
import { registerKeys } from "./keys.ts";
import { registerProjects } from "./projects.ts";
import { registerReference } from "./reference.ts";
import {
  accessLog,
  clientAddress,
  headLikeGet,
  jsonCharset,
  limitBody,
  requestId,
} from "./middleware.ts";
import { errorHandler, problemResponse, wrapNonErrors } from "./problem.ts";
import { registerSessions } from "./sessions.ts";
import { registerUsers } from "./users.ts";
import { registerExplore } from "./explore.ts";
import { registerTasks } from "./tasks.ts";
import { registerAvatar } from "./avatar.ts";

export const API_PREFIXES = ["/api/v1", "/v1"] as const;

/** The versioned API: every resource, mounted under each prefix. */
export function createApi(): OpenAPIHono<AppEnv> {
  const api = newRouter();
  registerUsers(api);
  registerSessions(api);
  registerKeys(api);
  registerProjects(api);
  registerAvatar(api);
  // Static task paths such as /tasks/explore must be registered before registerTasks, whose
  // /tasks/{id} would otherwise answer them first (with 404: not a UUID).
  registerExplore(api);
  registerTasks(api);
  return api;
}

/** A route path as an exact regular expression: `:param` is one segment, the rest literal. */
function pathPattern(path: string): RegExp {
  const segments = path.split("/").map((segment) =>
    segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  );
  return new RegExp(`^${segments.join("/")}$`);
}

/** Matches a request path against the app's routes to tell a wrong method from a wrong path. */
function allowedMethods(app: OpenAPIHono<AppEnv>) {
  let table: { pattern: RegExp; method: string }[] | null = null;
  return (path: string): string[] => {
    table ??= app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({
        method: r.method,
        pattern: pathPattern(r.path),
      }));
    const methods = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  };
}

/** The whole service, ready for `Deno.serve` or `app.request()`. */
export function createApp(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use(headLikeGet());
  app.use(requestId());
  app.use(jsonCharset());
  app.use(accessLog(deps));
  app.use(wrapNonErrors());
  app.use(async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  app.use(clientAddress(deps));
  // Before the body limit, so that even a 413 carries the CORS headers a browser needs to read it.
  const allowed = allowedMethods(app);
  for (const prefix of API_PREFIXES) app.use(`${prefix}/*`, apiCors(allowed));
  app.use(limitBody());

  registerHealth(app);
  registerReference(app);
  registerDashboard(app);
  const api = createApi();
  for (const prefix of API_PREFIXES) app.route(prefix, api);

  app.notFound((c) => {
    const methods = allowed(c.req.path);
    if (methods.length > 0) {
      return problemResponse(
        c,
        new AppError("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed here`, {
          headers: { Allow: methods.join(", ") },
        }),
      );
    }
    return problemResponse(c, new AppError("NOT_FOUND", `No route for ${c.req.path}`));
  });
  app.onError(errorHandler(deps));
  return app;
}
