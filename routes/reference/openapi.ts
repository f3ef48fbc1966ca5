/**
 * The OpenAPI 3.1 document, generated from the app's own route declarations: each versioned
 * path is listed once under the servers `/api/v1` and `/v1`, root paths with their own server,
 * and the headers every response carries are added in one place.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { Problem } from "../router/define.ts";
import { registerEventDocs } from "./openapi_events.ts";
import { DESCRIPTION, TAGS } from "./openapi_text.ts";
import { BUDGETED_PAGES } from "../http/rate_limit.ts";
import type { AppEnv } from "../router/env.ts";

export type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

const API_SERVERS = [
  { url: "/api/v1", description: "Task interface form" },
  { url: "/v1", description: "Overview form (the same endpoints)" },
];
const ROOT_SERVERS = [{ url: "/", description: "Service root" }];

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
  const document = {
    ...generated,
    // Without it, 3.1 tools may read the schemas as draft-07 and skip `prefixItems`.
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    paths,
    components: {
      ...generated.components,
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
  statePatternOfUuids(document);
  return document as OpenApiDocument;
}

/** zod's uuid check: RFC 9562 ids (a version digit and the variant bits), nil and max. */
const UUID_PATTERN = z.regexes.uuid().source;

/**
 * `format: uuid` alone is any 8-4-4-4-12 hex to a validator or a generator, looser than the ids
 * zod takes; the generator drops the pattern zod has for it, so it is stated here, once for every
 * id in the document.
 */
function statePatternOfUuids(node: unknown) {
  if (Array.isArray(node)) return node.forEach(statePatternOfUuids);
  if (typeof node !== "object" || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.format === "uuid" && schema.type === "string" && schema.pattern === undefined) {
    schema.pattern = UUID_PATTERN;
  }
  Object.values(schema).forEach(statePatternOfUuids);
}

/** The Problem schema must be a named component even before any route refers to it. */
export function registerOpenApiComponents(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.register("Problem", Problem);
  registerEventDocs(app);
}
