/**
 * Declares endpoints once: path, method, schemas, responses and access rule. The same
 * declaration validates requests, types handlers and feeds the OpenAPI document.
 */
import { createRoute, OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import type { Hook } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Access } from "../../domain/auth.ts";
import { AppError, ERROR_STATUS, type ErrorCode } from "../../domain/errors.ts";
import { authenticate } from "../http/authenticate.ts";
import type { AppEnv } from "./env.ts";
import { validationProblem } from "./problem.ts";
import { assertStrict } from "./request_members.ts";
import { RouteTable, type TableRoute } from "./route_table.ts";
import { NoQuery, servedRoute } from "./served_route.ts";
import { ShapeRouter } from "./shape_router.ts";

// deno-lint-ignore no-explicit-any
type AnyHook = Hook<any, AppEnv, any, any>;

/** The schema a route checks one validation target (`query`, `json`) with, if it has one. */
function requestSchema(route: RouteConfig | undefined, target: string): z.ZodType | undefined {
  if (target === "query") return route?.request?.query as z.ZodType | undefined;
  if (target !== "json") return undefined;
  const content = route?.request?.body?.content?.["application/json"];
  return content && "schema" in content ? content.schema as z.ZodType : undefined;
}

/**
 * Turns a failed validation of `route`'s request into the domain error; a bad path id is simply
 * not found. The route's schemas let an unknown member's error suggest the name it meant.
 */
function validationHookFor(route?: RouteConfig): AnyHook {
  return (result) => {
    if (result.success) return;
    if (result.target === "param") throw new AppError("NOT_FOUND", "Resource not found");
    throw validationProblem(result.error, requestSchema(route, result.target));
  };
}

/** The hook for routes that are not declared with `routerOf` (no name suggestions). */
export const validationHook: AnyHook = validationHookFor();

/** Adds a group of endpoints to a router. */
export type Register = (api: OpenAPIHono<AppEnv>) => void;

/** A route as declared, kept until the table hands it to Hono. */
type Declared = TableRoute & {
  declaration: { route: RouteConfig; handler: unknown; hook: AnyHook };
};

/** The schema of each of a route's path parameters. */
function paramSchemas(route: RouteConfig): Record<string, z.ZodType> | undefined {
  const params = route.request?.params;
  return params instanceof z.ZodObject ? params.shape as Record<string, z.ZodType> : undefined;
}

/**
 * A router whose endpoints form one route table. Hono answers with the first matching route it
 * was given, and to Hono a path parameter matches any segment (`/tasks/{id}` would answer
 * `/tasks/explore`): so `openapi` only declares a route, and `table()` sorts the declarations
 * once, hands them to Hono most specific first, and answers which methods a path takes.
 * Validation failures become VALIDATION_ERROR problems.
 */
export class Router extends OpenAPIHono<AppEnv> {
  // Hono's own `openapi`, before this class's replaces it (fields are set in this order).
  readonly #add = (this as OpenAPIHono<AppEnv>).openapi;
  readonly #declared: Declared[] = [];
  readonly #mounted: TableRoute[] = [];
  #table: RouteTable | null = null;
  #lookup: RouteTable | null = null;
  readonly #pathsChecked: boolean;

  /**
   * `pathsChecked`: every request reaches these routes through the app's route check
   * (createApp asks `methodsFor`), which has tested each path parameter against its schema.
   */
  constructor(options: { pathsChecked?: boolean } = {}) {
    super({ defaultHook: validationHook, router: new ShapeRouter() });
    this.#pathsChecked = options.pathsChecked ?? false;
  }

  override openapi = ((route, handler, hook) => {
    const where = `${route.method.toUpperCase()} ${route.path}`;
    if (this.#table) throw new Error(`${where} is declared after the route table was built`);
    this.#declared.push({
      method: route.method,
      path: route.path,
      params: paramSchemas(route),
      declaration: {
        route,
        handler,
        hook: (hook as AnyHook | undefined) ?? validationHookFor(route),
      },
    });
    return this;
  }) as OpenAPIHono<AppEnv>["openapi"];

  /** Serves `router`'s routes under `prefix`, and takes them into this router's table. */
  serveUnder(prefix: string, router: Router): void {
    for (const { method, path, params } of router.table().routes) {
      // Only what the table matches on: the declaration stays with the router that serves it.
      this.#mounted.push({ method, path: prefix + path, params });
    }
    this.route(prefix, router);
  }

  /** The route table; the first call gives Hono the declared routes, so declare them all first. */
  table(): RouteTable {
    if (this.#table) return this.#table;
    const table = new RouteTable<TableRoute | Declared>([...this.#mounted, ...this.#declared]);
    for (const route of table.routes) {
      if (!("declaration" in route)) continue;
      const { route: declared, handler, hook } = route.declaration;
      const { middleware: _, hide, ...documented } = declared;
      if (!hide) this.openAPIRegistry.registerPath(documented);
      const served = servedRoute(declared, hook, { paramsChecked: this.#pathsChecked });
      this.#add(served, handler as never, hook);
    }
    return this.#table = table;
  }

  /**
   * The methods `path` takes: those of the declared routes, and of routes added to Hono directly
   * (`app.get`, as tests do) before the first request, when Hono's matcher is built for good.
   */
  methodsFor(path: string): string[] {
    this.#lookup ??= this.#withPlainRoutes();
    return this.#lookup.methodsFor(path);
  }

  /** The declared route that takes `path`, in Hono's spelling (`/api/v1/tasks/:id`), or null. */
  routeFor(path: string): string | null {
    this.#lookup ??= this.#withPlainRoutes();
    return this.#lookup.routeFor(path);
  }

  #withPlainRoutes(): RouteTable {
    const declared = this.table().routes;
    const known = new Set(declared.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    const plain = this.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => ({
        method: route.method,
        path: route.path.replace(/:(\w+)/g, "{$1}"),
      }))
      .filter((route) => !known.has(`${route.method.toUpperCase()} ${route.path}`));
    return new RouteTable([...declared, ...plain]);
  }
}

/**
 * The API's router, holding every endpoint the register functions declare, in any order they
 * come; served only behind the app's route check (createApp), which tests its path parameters.
 */
export function routerOf(...registers: Register[]): Router {
  const api = new Router({ pathsChecked: true });
  for (const register of registers) register(api);
  return api;
}

/** OpenAPI 3.1 lets any scheme list roles: an API key's list names the scope it needs. */
function securityFor(access: Access): Record<string, string[]>[] {
  const scopes = typeof access === "object" ? [access.scope] : [];
  const credentials: Record<string, string[]>[] = [
    { ApiKeyHeader: scopes },
    { BearerApiKey: scopes },
    { SessionToken: [] },
  ];
  if (access === "session") return [{ SessionToken: [] }];
  if (access === "public") return [{}, ...credentials];
  return credentials;
}

/**
 * Declares an endpoint guarded by `access`; the OpenAPI `security` follows from it. Every
 * endpoint draws from a request budget, so each documents 429 whether it says so or not. Its
 * query and JSON body refuse members they do not declare (400 UNKNOWN_PARAMETER): a schema that
 * would drop them stops the service at startup.
 */
export function defineRoute<R extends RouteConfig>(
  access: Access,
  config: R,
  before: MiddlewareHandler<AppEnv>[] = [],
) {
  const where = `${config.method.toUpperCase()} ${config.path}`;
  const request = { ...config.request, query: config.request?.query ?? NoQuery };
  assertStrict(request.query as z.ZodType, `${where} query`);
  const body = requestSchema({ ...config, request }, "json");
  if (body) assertStrict(body, `${where} body`);
  const declared = { ...config, request } as R;
  return createRoute({
    ...declared,
    responses: { ...problems(429), ...config.responses },
    security: securityFor(access),
    middleware: [authenticate(access), ...before] as const,
  });
}

/**
 * For a route whose JSON body is optional: an empty body says nothing, whatever its Content-Type
 * (clients often label a bodiless POST as JSON), so it validates as an absent one.
 */
export const emptyBodyIsNone: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = c.req.raw;
  const empty = raw.body === null || raw.headers.get("Content-Length") === "0";
  if (empty && raw.headers.has("Content-Type")) {
    // A served request's headers are immutable: the request is replaced by a bodiless copy.
    // Without the served request's signal: reading it makes Deno print a notice on its legacy
    // abort, and nothing downstream watches it.
    const headers = new Headers(raw.headers);
    headers.delete("Content-Type");
    headers.delete("Content-Length");
    c.req.raw = new Request(raw.url, { method: raw.method, headers });
  }
  await next();
};

/** Schema of every problem+json error body. */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).openapi({
    description: "Stable machine-readable error code; see the list in the API description",
  }),
  requestId: z.string().openapi({ description: "The response's X-Request-Id" }),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional().openapi({
    description: "With VALIDATION_ERROR and UNKNOWN_PARAMETER: one entry per problem, " +
      "addressed by dotted path",
  }),
  scope: z.string().optional().openapi({
    description: "With SCOPE_INSUFFICIENT: the scope the endpoint needs",
  }),
  expiredAt: z.string().optional().openapi({
    format: "date-time",
    description: "With API_KEY_INVALID for an expired key (or a rolled key's old value past its " +
      "grace): when it stopped working. A revoked key answers as an unknown one, without it",
  }),
}).openapi("Problem", {
  description: "An RFC 9457 problem details body with the service's `code` and request id",
  example: {
    type: "about:blank",
    title: "Unauthorized",
    status: 401,
    detail: "No credential: send an API key as X-API-Key: svc_… or Authorization: Bearer " +
      "svc_…, or a session token as Authorization: Bearer <token>",
    code: "TOKEN_MISSING",
    requestId: "01JD3YQ5G7N9J7M2X4W8T6V0KC",
  },
});

/** The body of confirmations such as `{"message":"Task deleted"}`. */
export const Message = z.object({ message: z.string() }).openapi("Message");

/** Documents the error responses an endpoint may answer with. */
export function problems(...statuses: number[]) {
  const descriptions: Record<number, string> = {
    400: "Validation error, malformed JSON or bad cursor",
    401: "Missing, invalid or expired credential, or address not allowed",
    403: "Scope insufficient, session required, or not the owner",
    404: "Not found",
    409: "Conflict",
    413: "Body over 64 KiB",
    415: "Body is not JSON",
    422: "Idempotency key reused with another body",
    429: "Rate limited",
  };
  return Object.fromEntries(statuses.map((status) => [status, {
    description: descriptions[status] ?? "Error",
    content: { "application/problem+json": { schema: Problem } },
  }]));
}

/** One problem response with its own description, for a route whose refusals need saying. */
export function problem(status: number, description: string) {
  return { [status]: { ...problems(status)[status], description } };
}

/** A JSON response entry for a route's `responses`. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A required JSON request body. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** A 201 response carrying the new resource and its `Location`. */
export function createdContent<T extends z.ZodType>(schema: T, description: string) {
  return {
    ...jsonContent(schema, description),
    headers: z.object({
      Location: z.string().openapi({ description: "The new resource's URL" }),
    }),
  };
}
