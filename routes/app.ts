/**
 * Builds the HTTP app from its dependencies: app-wide middleware, every resource under both
 * `/api/v1` and `/v1`, and the 404/405 and error mappings.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { AppError } from "../domain/errors.ts";
import { apiCors } from "./cors.ts";
import { registerDashboard } from "./dashboard/register.tsx";
import { routerOf, validationHook } from "./define.ts";
import type { AppEnv, Deps } from "./env.ts";
import { registerFavicon } from "./favicon.ts";
import { registerHealth } from "./health.ts";
import { registerKeys } from "./keys.ts";
import { registerProjects } from "./projects.ts";
import { registerReference } from "./reference.ts";
import { limitBody, requestLifecycle } from "./middleware.ts";
import { anonymousBudget, BUDGETED_PAGES, enforceRequestBudget } from "./rate_limit.ts";
import { errorHandler, problemResponse } from "./problem.ts";
import { registerSessions } from "./sessions.ts";
import { registerUsers } from "./users.ts";
import { registerExplore } from "./explore.ts";
import { registerTasks } from "./tasks.ts";
import { registerAvatar } from "./avatar.ts";
import { registerWebhooks } from "./webhooks.ts";
import { registerWebhookDeliveries } from "./webhook_deliveries.ts";
import { registerSecurityLog } from "./security_log.ts";
import { registerApplications } from "./applications.ts";
import { registerAlerts } from "./alerts/alerts.ts";

export const API_PREFIXES = ["/api/v1", "/v1"] as const;

/** The versioned API: every resource, mounted under each prefix. */
export function createApi(): OpenAPIHono<AppEnv> {
  return routerOf(
    registerUsers,
    registerSessions,
    registerKeys,
    registerProjects,
    registerAvatar,
    registerWebhooks,
    registerWebhookDeliveries,
    registerSecurityLog,
    registerTasks,
    registerExplore,
    registerApplications,
    registerAlerts,
  );
}

/**
 * What a path parameter matches. Every id in the API is a UUID (tests/route_matching_test.ts
 * holds the OpenAPI document to that), so `/tasks/not-an-id` is no path at all, like any
 * unknown path, and `/tasks/explore` is not also a `/tasks/{id}`.
 */
const PARAM_SEGMENT = z.regexes.uuid().source.replace(/^\^|\$$/g, "");

/** A route path as an exact regular expression: `:param` is one id, the rest literal. */
function pathPattern(path: string): RegExp {
  const segments = path.split("/").map((segment) =>
    segment.startsWith(":") ? PARAM_SEGMENT : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  );
  return new RegExp(`^${segments.join("/")}$`);
}

/**
 * Answers an API request whose path does not exist (404) or does not take its method (405)
 * before any route runs: Hono's own matching takes any segment as an id, so it would let
 * credentials be checked, or a neighbouring route answer, for a path that is not there.
 */
function knownRoutesOnly(methodsFor: (path: string) => string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!methodsFor(c.req.path).includes(c.req.method)) return c.notFound();
    return await next();
  };
}

/** Routes by path, bucketed by segment count: a lookup tests a handful of patterns, not all. */
function routeTable(app: OpenAPIHono<AppEnv>) {
  const byPath = new Map<string, string[]>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const methods = byPath.get(route.path) ?? [];
    if (!methods.includes(route.method)) methods.push(route.method);
    byPath.set(route.path, methods);
  }
  const buckets = new Map<number, { pattern: RegExp; methods: string[] }[]>();
  for (const [path, methods] of byPath) {
    const size = path.split("/").length;
    buckets.set(size, [...buckets.get(size) ?? [], { pattern: pathPattern(path), methods }]);
  }
  return buckets;
}

/** Matches a request path against the app's routes to tell a wrong method from a wrong path. */
function allowedMethods(app: OpenAPIHono<AppEnv>) {
  let table: ReturnType<typeof routeTable> | null = null;
  return (path: string): string[] => {
    table ??= routeTable(app);
    const methods = new Set<string>();
    for (const route of table.get(path.split("/").length) ?? []) {
      if (route.pattern.test(path)) { for (const method of route.methods) methods.add(method); }
    }
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  };
}

/** The whole service, ready for `Deno.serve` or `app.request()`. */
export function createApp(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const onError = errorHandler(deps);
  app.use(requestLifecycle(deps, onError));
  // Before the body limit, so that even a 413 carries the CORS headers a browser needs to read it.
  const allowed = allowedMethods(app);
  for (const prefix of API_PREFIXES) {
    app.use(`${prefix}/*`, apiCors(allowed));
    app.use(`${prefix}/*`, knownRoutesOnly(allowed));
  }
  app.use(limitBody());

  registerHealth(app);
  registerFavicon(app);
  // /health, /favicon.ico and /openapi.json stay free (probes, browsers' automatic requests,
  // tooling); the pages draw like anonymous calls.
  // ("/dashboard/*" matches /dashboard itself too.)
  for (const path of BUDGETED_PAGES) app.use(path, anonymousBudget());
  registerReference(app);
  registerDashboard(app);
  const api = createApi();
  for (const prefix of API_PREFIXES) app.route(prefix, api);

  app.notFound(async (c) => {
    // Unknown paths and methods are work too: they draw from the address's anonymous budget.
    await enforceRequestBudget(c, deps, null);
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
  app.onError(onError);
  return app;
}
