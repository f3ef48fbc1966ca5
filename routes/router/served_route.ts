/**
 * What Hono serves for a declared route: the declaration itself, less the validators that cannot
 * refuse anything on a request that sends nothing for them, or that the route table ran already.
 * Each validator is a middleware layer that copies its whole target (every header, every query
 * member) before it parses, paid by every request; the OpenAPI document gets the whole declaration.
 */
import { type RouteConfig, z } from "@hono/zod-openapi";
import type { Hook } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import { AppError } from "../../domain/errors.ts";
import type { AppEnv } from "./env.ts";

// deno-lint-ignore no-explicit-any
type AnyHook = Hook<any, AppEnv, any, any>;

/** The query of an endpoint that takes no query parameters: any one sent is refused. */
export const NoQuery = z.strictObject({});

/** Request header schemas that accept every value: documented, never checked. */
const documentedOnly = new WeakSet<z.ZodType>();

/**
 * Marks a request header schema whose every member is an optional string: no request can fail
 * it, so it documents the headers and types nothing a handler reads through `c.req.valid`.
 */
export function documentedHeaders<T extends z.ZodObject>(schema: T): T {
  for (const [name, member] of Object.entries(schema.shape)) {
    if (!(member as z.ZodType).safeParse(undefined).success) {
      throw new Error(`documented header ${name} must be optional`);
    }
  }
  documentedOnly.add(schema);
  return schema;
}

/**
 * Checks a query against `NoQuery` only when the URL has one: a URL without `?` has no member to
 * refuse. A URL with one is validated as Hono's zod validator would, through the same hook.
 */
function noQuery(hook: AnyHook, takeParams: boolean): MiddlewareHandler<AppEnv> {
  const validate = validator("query", async (value, c) => {
    const result = await NoQuery.safeParseAsync(value);
    const answer = await hook({ data: value, ...result, target: "query" }, c);
    if (answer instanceof Response) return answer;
    if (!result.success) return c.json(result, 400);
    return result.data;
  });
  return (c, next) => {
    if (takeParams) c.req.addValidatedData("param", c.req.param());
    const url = c.req.url;
    const mark = url.indexOf("?");
    if (mark < 0 || mark === url.length - 1) {
      c.req.addValidatedData("query", {});
      return next();
    }
    return validate(c, next);
  };
}

/**
 * Refuses a query member with an empty name (`?=0.0`) where a query schema is declared: Hono's
 * query parsing drops it, so no schema would see it, while any other undeclared name
 * (`?zzz=0.0`) is refused as unknown.
 */
const noEmptyQueryName: MiddlewareHandler<AppEnv> = (c, next) => {
  const url = c.req.url;
  const mark = url.indexOf("?");
  if (mark >= 0 && mark < url.length - 1) {
    const hash = url.indexOf("#", mark);
    const search = new URLSearchParams(url.slice(mark + 1, hash < 0 ? undefined : hash));
    if (search.has("")) {
      throw new AppError("UNKNOWN_PARAMETER", "Unknown parameter: a parameter with no name", {
        errors: [{ path: "", message: "is not a known parameter" }],
      });
    }
  }
  return next();
};

/**
 * True when path parameters checked already by the route table are what the validator would
 * answer: an object of plain strings, nothing transformed, no check on the whole.
 */
function plainParams(schema: unknown): boolean {
  if (!(schema instanceof z.ZodObject) || schema._zod.def.checks?.length) return false;
  return Object.values(schema.shape).every((member) => member._zod.def.type === "string");
}

/** The path parameters as validated data, for a route whose parameters the route table checked. */
const checkedParams: MiddlewareHandler<AppEnv> = (c, next) => {
  c.req.addValidatedData("param", c.req.param());
  return next();
};

/**
 * `route` as Hono serves it (hidden: the document takes the declaration whole). `paramsChecked`:
 * its requests passed the route table, which tested each path parameter against its schema; plain
 * string parameters are then taken as they are, not parsed again by a validator layer.
 */
export function servedRoute(
  route: RouteConfig,
  hook: AnyHook,
  { paramsChecked }: { paramsChecked: boolean },
): RouteConfig {
  const { query, headers, params, ...request } = route.request ?? {};
  // Route middleware (authentication) runs before the validators, as Hono's `openapi` orders them.
  const middleware = [route.middleware ?? []].flat();
  // Only where undeclared names are refused: a route that declares no query takes any.
  if (query !== undefined) middleware.push(noEmptyQueryName);
  const takeParams = paramsChecked && params !== undefined && plainParams(params);
  if (params !== undefined && !takeParams) Object.assign(request, { params });
  if (query === NoQuery) middleware.push(noQuery(hook, takeParams));
  else {
    if (query) Object.assign(request, { query });
    if (takeParams) middleware.push(checkedParams);
  }
  if (headers && !documentedOnly.has(headers as z.ZodType)) Object.assign(request, { headers });
  return { ...route, request, middleware, hide: true } as RouteConfig;
}
