/**
 * The OpenAPI 3.1 document, generated from the app's own route declarations: each versioned
 * path is listed once under the servers `/api/v1` and `/v1`, root paths with their own server,
 * and the headers every response carries are added in one place.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { ERROR_STATUS, type ErrorCode } from "../../domain/errors.ts";
import { Problem } from "../define.ts";
import { registerEventDocs } from "./openapi_events.ts";
import { BUDGETED_PAGES } from "../http/rate_limit.ts";
import type { AppEnv } from "../env.ts";

export type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

const API_SERVERS = [
  { url: "/api/v1", description: "Task interface form" },
  { url: "/v1", description: "Overview form (the same endpoints)" },
];
const ROOT_SERVERS = [{ url: "/", description: "Service root" }];

/** What each error code means; typed by ErrorCode so a new code cannot go undocumented. */
const ERROR_MEANING: Record<ErrorCode, string> = {
  VALIDATION_ERROR: "body, query or path fails the rules; `errors` lists each problem",
  UNKNOWN_PARAMETER: "a body member (at any depth) or query parameter the endpoint does not " +
    "know; `errors` names each (`path`) with the closest known name, then any other problem",
  INVALID_JSON: "the body is not JSON",
  INVALID_CURSOR: "cursor malformed, or made for another query",
  TOKEN_MISSING: "no credential where one is needed",
  API_KEY_INVALID: "API key malformed, unknown, revoked or expired",
  TOKEN_INVALID: "session token bad, expired or logged out",
  IP_NOT_ALLOWED: "the key has an IP whitelist and the client address is outside it",
  INVALID_CREDENTIALS: "login with a wrong email or password",
  SCOPE_INSUFFICIENT: "the key lacks the endpoint's scope; `scope` names it",
  SESSION_REQUIRED: "an API key where a session token is required",
  FORBIDDEN: "acting on another user's visible resource",
  NOT_A_PARTY: "reviewing someone who is not one's counterpart on the task",
  NOT_FOUND: "unknown resource or route, or another user's private resource",
  METHOD_NOT_ALLOWED: "known path, wrong method (see `Allow`)",
  EMAIL_TAKEN: "sign-up with an email already in use",
  KEY_LIMIT_REACHED: "an 11th active API key",
  WEBHOOK_LIMIT_REACHED: "an 11th webhook endpoint",
  INVALID_TRANSITION: "the resource's state does not allow the change",
  TASK_FULL: "accepting an application past the task's maxPeople",
  ALREADY_APPLIED: "a second active (pending or accepted) application to one task",
  APPLICATION_DECLINED: "applying again to a task whose creator declined one's application",
  TASK_NOT_COMPLETED: "reviewing on a task that is not completed yet",
  ALREADY_REVIEWED: "a second review of the same person on the same task",
  REVIEW_WINDOW_CLOSED: "reviewing from 14 days after the task's completion",
  ALERT_LIMIT: "a 21st task alert",
  CONFLICT: "concurrent changes kept the request from completing; retry",
  PAYLOAD_TOO_LARGE: "body over 64 KiB",
  UNSUPPORTED_MEDIA_TYPE: "a body that is not application/json",
  IDEMPOTENCY_KEY_REUSED: "same Idempotency-Key, different body",
  RATE_LIMITED: "the request budget is spent; see `Retry-After`",
  INTERNAL_ERROR: "an unexpected failure; the body never carries internals",
  SERVICE_UNAVAILABLE: "storage does not answer",
  STORAGE_FULL: "the store is out of space: reads work, writes wait for space (see `Retry-After`)",
};

const DESCRIPTION = `A REST interface for a task marketplace: users post tasks with a budget, a
location and requirements, and others browse them.

## Credentials

- **API key**: \`X-API-Key: svc_<64 hex>\` or \`Authorization: Bearer svc_<64 hex>\`, on every path.
  Keys carry scopes, may be limited to IP ranges, and expire.
- **Session token**: \`Authorization: Bearer <jwt>\` from \`POST /v1/auth/token\`. A session holds
  every scope and is the only credential that manages API keys or deletes the account.

An endpoint that needs no credential still checks one that is sent. Checks run in this order,
the first failure answering: 401 TOKEN_MISSING; 401 API_KEY_INVALID or TOKEN_INVALID;
401 IP_NOT_ALLOWED; 429 RATE_LIMITED; 403 SCOPE_INSUFFICIENT; 403 SESSION_REQUIRED.

## Rate limits

Every request to a versioned path draws from an hourly budget over a sliding window shared by
every instance: per API key (1000 by default), per account for session tokens (the same size),
per client address without a credential. The window is sixty one-minute slots: a request counts
until its minute is an hour old (59 to 60 minutes). Each response that drew from a budget carries
\`RateLimit-Policy: "default";q=<limit>;w=3600\`, \`RateLimit: "default";r=<remaining>;t=<seconds>\`,
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds): \`t\` and
\`X-RateLimit-Reset\` say when the oldest counted request leaves the window, never more than an
hour ahead. A spent budget answers 429 RATE_LIMITED with \`Retry-After\`, the seconds until one
more request is admitted. Key creation is limited per account (20 a minute by default) and failed
logins per email (10 in 15 minutes), each with its own 429.

## Paging

Cursor-paged listings answer a JSON array. When more items follow, the response carries
\`X-Next-Cursor\` and \`Link: <next page URL>; rel="next"\`; the last page carries neither. A cursor
is opaque and bound to its query's filters. \`limit\` is 1 to 50 (default 20). Order is newest first.

## Webhooks

\`/webhooks\` manages up to 10 endpoints per account (scopes \`webhooks:read\`, \`webhooks:write\`).
Each event (listed under this document's \`webhooks\`) is posted as
\`{id: "evt_<ulid>", type, createdAt, data}\` with the Standard Webhooks headers \`webhook-id\` (the
event id, the same on every retry), \`webhook-timestamp\` and \`webhook-signature\`
(\`v1,<base64 HMAC-SHA256>\` of \`id.timestamp.body\` with the endpoint's \`whsec_\` secret; two
signatures for 24 hours after a rotation). A 2xx within 15 s is success; otherwise the attempt is
retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, and an endpoint failing for 5 days
is disabled (\`disabledReason\`). Only https URLs to public addresses are accepted, checked again at
every attempt; redirects are not followed.

## Errors

Errors are \`application/problem+json\` (RFC 9457) with a stable \`code\` and the \`requestId\`:

| status | code | when |
|---|---|---|
${
  (Object.keys(ERROR_STATUS) as ErrorCode[])
    .map((code) => `| ${ERROR_STATUS[code]} | ${code} | ${ERROR_MEANING[code]} |`)
    .join("\n")
}

Every response carries \`X-Request-Id\`.`;

const TAGS = [
  { name: "Tasks", description: "Post, list, browse and delete tasks" },
  { name: "Users", description: "Sign-up, public profiles, one's own account" },
  { name: "Sessions", description: "Log in and out with email and password" },
  { name: "API keys", description: "Scoped, rotatable, IP-restrictable keys (session only)" },
  { name: "Projects", description: "Each user's private projects" },
  {
    name: "Applications",
    description: "Apply to tasks; creators accept or decline, applicants withdraw",
  },
  {
    name: "Reviews",
    description: "After completion, creator and accepted applicants review each other, " +
      "double-blind; ratings on profiles and tasks",
  },
  {
    name: "Alerts",
    description: "Saved explore filters that send task.matched when a matching task is posted",
  },
  {
    name: "Webhooks",
    description: "Signed event deliveries (Standard Webhooks) to the account's endpoints",
  },
  { name: "Security log", description: "Sign-ins and credential changes of one's account" },
  { name: "Service", description: "Health, this document and its reference page" },
  { name: "Dashboard", description: "The account dashboard: one web page, its script and styles" },
];

/** A response header's entry in components.headers. */
function header(description: string, type: "string" | "integer") {
  return { description, schema: { type } };
}

const HEADERS = {
  "X-Request-Id": header(
    "The request's id: the client's own X-Request-Id when sane, else a new ULID",
    "string",
  ),
  "RateLimit-Policy": header(
    'On rate-limited requests: the quota, e.g. `"default";q=1000;w=3600`',
    "string",
  ),
  RateLimit: header(
    'On rate-limited requests: e.g. `"default";r=998;t=3540` (remaining, seconds)',
    "string",
  ),
  "X-RateLimit-Limit": header(
    "On rate-limited requests: requests allowed per window",
    "integer",
  ),
  "X-RateLimit-Remaining": header(
    "On rate-limited requests: requests left in the window",
    "integer",
  ),
  "X-RateLimit-Reset": header(
    "On rate-limited requests: Unix time (seconds) when a unit frees",
    "integer",
  ),
  "Retry-After": header(
    "Seconds to wait before retrying",
    "integer",
  ),
  "Cache-Control": header(
    "`no-store` on every answer to a request that presented a credential; pages, documents " +
      "and shared answers say their own caching",
    "string",
  ),
  Vary: header(
    "The request headers the answer depends on: `Accept-Encoding` where it may be gzipped, " +
      "`Origin` for CORS, the credential headers on shared answers",
    "string",
  ),
  ETag: header("The answer's entity tag: If-None-Match with it answers 304", "string"),
};
const RATE_LIMIT_HEADERS = [
  "RateLimit-Policy",
  "RateLimit",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
];

const SECURITY_SCHEMES = {
  ApiKeyHeader: {
    type: "apiKey" as const,
    in: "header" as const,
    name: "X-API-Key",
    description: "An API key: `svc_` and 64 lowercase hex digits",
  },
  BearerApiKey: {
    type: "http" as const,
    scheme: "bearer",
    bearerFormat: "svc_<64 hex>",
    description: "An API key sent as `Authorization: Bearer svc_...`",
  },
  SessionToken: {
    type: "http" as const,
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A session token from POST /v1/auth/token",
  },
};

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { headers?: Record<string, unknown>; [k: string]: unknown }>;
  [k: string]: unknown;
}
type PathItem = Partial<Record<(typeof METHODS)[number], Operation>> & Record<string, unknown>;

/** `get /users/{id}/regenerate` → `getUsersByIdRegenerate`: stable, unique per operation. */
function operationIdOf(method: string, path: string): string {
  const words = path.split("/").filter(Boolean).map((part) => {
    const param = /^\{(.+)\}$/.exec(part);
    const word = param ? `by-${param[1]}` : part;
    return word.split(/[^A-Za-z0-9]+/).filter(Boolean)
      .map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  });
  return method + words.join("");
}

const WRITES = new Set(["post", "put", "patch", "delete"]);

/** True for a service-root path that draws from the anonymous budget (see BUDGETED_PAGES). */
function isBudgetedPage(path: string): boolean {
  return BUDGETED_PAGES.some((page) =>
    page.endsWith("/*")
      ? path === page.slice(0, -2) || path.startsWith(page.slice(0, -1))
      : path === page
  );
}

/** Adds a component header to a response unless its route declared the header itself. */
function addHeader(headers: Record<string, unknown>, name: string) {
  headers[name] ??= { $ref: `#/components/headers/${name}` };
}

/**
 * Adds the headers and the 500 answer that every operation has, whoever declared it, and the 503
 * of a store out of space to every operation that writes.
 */
function completeOperation(
  at: { method: string; path: string; versioned: boolean },
  op: Operation,
) {
  const { method, path, versioned } = at;
  op.operationId ??= operationIdOf(method, path);
  op.security ??= []; // root paths take no credential at all
  op.responses["500"] ??= {
    description: "Unexpected failure",
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  };
  if (versioned && WRITES.has(method)) {
    op.responses["503"] ??= {
      description: "STORAGE_FULL: the store is out of space; retry after `Retry-After`",
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  const budgeted = versioned || isBudgetedPage(path);
  // A route that can answer 304 tags its answers; the 304 repeats the tag.
  const tagged = "304" in op.responses;
  for (const [status, response] of Object.entries(op.responses)) {
    const headers: Record<string, unknown> = { ...response.headers };
    headers["X-Request-Id"] = { $ref: "#/components/headers/X-Request-Id" };
    if (budgeted) {
      for (const name of RATE_LIMIT_HEADERS) {
        headers[name] = { $ref: `#/components/headers/${name}` };
      }
    }
    if (status === "429" || (status === "503" && versioned)) addHeader(headers, "Retry-After");
    addHeader(headers, "Cache-Control");
    addHeader(headers, "Vary");
    if (tagged && (status === "200" || status === "304")) addHeader(headers, "ETag");
    response.headers = headers;
  }
}

/** Generates the document of every route the app declares. */
export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>): OpenApiDocument {
  const generated = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: { title: "Task marketplace API", version: "1.0.0", description: DESCRIPTION },
    servers: API_SERVERS,
    tags: TAGS,
  });
  const source = (generated.paths ?? {}) as Record<string, PathItem>;
  const paths: Record<string, PathItem> = {};
  for (const [fullPath, item] of Object.entries(source)) {
    if (fullPath.startsWith("/api/v1/")) continue; // the same operations as under /v1
    const versioned = fullPath.startsWith("/v1/");
    const path = versioned ? fullPath.slice("/v1".length) : fullPath;
    const copy: PathItem = structuredClone(item);
    for (const method of METHODS) {
      const op = copy[method];
      if (op) completeOperation({ method, path, versioned }, op);
    }
    if (!versioned) copy.servers = ROOT_SERVERS;
    paths[path] = copy;
  }
  return {
    ...generated,
    // Without it, 3.1 tools may read the schemas as draft-07 and skip `prefixItems`.
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    paths,
    components: {
      ...generated.components,
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  } as OpenApiDocument;
}

/** The Problem schema must be a named component even before any route refers to it. */
export function registerOpenApiComponents(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.register("Problem", Problem);
  registerEventDocs(app);
}
