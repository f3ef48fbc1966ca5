/**
 * Builds the HTTP app from its dependencies: app-wide middleware, every resource under both
 * `/api/v1` and `/v1`, and the 404/405 and error mappings.
 */
import type { Context } from "hono";
import { AppError } from "../domain/errors.ts";
import { installValidationMessages } from "../domain/validation/validation_messages.ts";
import { apiCors } from "./http/cors.ts";
import { registerDashboard } from "./dashboard/register.tsx";
import { type Register, Router, routerOf } from "./router/define.ts";
import type { AppEnv, Deps } from "./router/env.ts";
import { registerFavicon } from "./favicon/favicon.ts";
import { registerHealth } from "./health/health.ts";
import { registerLanding } from "./landing/landing.ts";
import { registerKeys } from "./api_keys/api_keys.ts";
import { registerProjects } from "./projects/projects.ts";
import { registerReference } from "./reference/reference.ts";
import { limitBody, requestLifecycle } from "./http/middleware.ts";
import { anonymousBudget, BUDGETED_PAGES, enforceRequestBudget } from "./http/rate_limit.ts";
import { errorHandler, problemResponse } from "./router/problem.ts";
import { registerSessions } from "./users/sessions.ts";
import { registerUsers } from "./users/users.ts";
import { registerExplore } from "./tasks/explore.ts";
import { registerTasks } from "./tasks/tasks.ts";
import { registerAvatar } from "./users/avatar.ts";
import { registerWebhooks } from "./webhooks/webhooks.ts";
import { registerWebhookDeliveries } from "./webhooks/webhook_deliveries.ts";
import { registerSecurityLog } from "./security_log/security_log.ts";
import { registerApplications } from "./applications/applications.ts";
import { registerReviews } from "./reviews/reviews.ts";
import { registerAlerts } from "./alerts/alerts.ts";
import { registerCancellation } from "./cancellation/cancel.ts";
import { registerTaskHistory } from "./history/task_history.ts";
import { registerConversations } from "./conversations/conversations.ts";
import { registerEvents } from "./events/events.ts";

export const API_PREFIXES = ["/api/v1", "/v1"] as const;

/** The methods whose requests may carry a body a route reads (every other is refused first). */
const BODY_METHODS = ["POST", "PUT", "PATCH", "DELETE"];

export interface AppOptions {
  /** More endpoints of the versioned API, beside the service's own (tests declare some). */
  routes?: Register[];
}

/** The versioned API: every resource, mounted under each prefix. */
export function createApi(...more: Register[]): Router {
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
    registerReviews,
    registerAlerts,
    registerCancellation,
    registerTaskHistory,
    registerConversations,
    registerEvents,
    ...more,
  );
}

/**
 * Answers an API request whose path does not exist (404) or does not take its method (405)
 * before any route runs: Hono's own matching takes any segment as a parameter, so it would let
 * credentials be checked, or a neighbouring route answer, for a path that is not there. Asked by
 * the CORS layer (`apiCors`), whose headers it still gets; a refusal the not-found answer throws
 * (its budget spent) is answered here, as a layer of its own would have had it answered.
 */
function unknownRoute(
  onError: (error: Error, c: Context<AppEnv>) => Response,
): (c: Context<AppEnv>) => Promise<Response> {
  return async (c) => {
    try {
      return await c.notFound();
    } catch (error) {
      if (error instanceof Error) return onError(error, c);
      throw error;
    }
  };
}

/** The whole service, ready for `Deno.serve` or `app.request()`. */
export function createApp(deps: Deps, options: AppOptions = {}): Router {
  installValidationMessages();
  const app = new Router();
  const onError = errorHandler(deps);
  // Asked only once requests come, after the last line below has handed Hono the routes.
  const allowed = (path: string) => app.methodsFor(path);
  app.use(requestLifecycle(deps, onError, (path) => app.routeFor(path)));
  // Before the body limit, so that even a 413 carries the CORS headers a browser needs to read it.
  const apiEntry = apiCors(allowed, unknownRoute(onError));
  for (const prefix of API_PREFIXES) app.use(`${prefix}/*`, apiEntry);
  // Only methods whose routes read a body: a GET or HEAD reads none, and a layer costs every
  // request a call, a promise and an await.
  app.on(BODY_METHODS, "*", limitBody());

  registerHealth(app);
  registerFavicon(app);
  registerLanding(app);
  // /health, /favicon.ico, / and /openapi.json stay free (probes, browsers' automatic requests,
  // tooling); the pages draw like anonymous calls.
  // ("/dashboard/*" matches /dashboard itself too.)
  for (const path of BUDGETED_PAGES) app.use(path, anonymousBudget());
  registerReference(app);
  registerDashboard(app);
  const api = createApi(...options.routes ?? []);
  for (const prefix of API_PREFIXES) app.serveUnder(prefix, api);

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
  app.table();
  return app;
}
