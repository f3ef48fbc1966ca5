import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { ERROR_STATUS } from "../../domain/errors.ts";
import { setup } from "../helpers.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

const METHODS = ["get", "put", "post", "delete", "patch"];

async function loadDocument() {
  const svc = await setup();
  const res = await svc.request("/openapi.json");
  const doc: Doc = await res.json();
  return { svc, res, doc };
}

/** Every operation of the document as [method, path, operation]. */
function operations(doc: Doc): [string, string, Doc][] {
  return Object.entries(doc.paths as Record<string, Doc>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => [m, path, item[m]] as [string, string, Doc])
  );
}

Deno.test("GET /openapi.json is an OpenAPI 3.1 document of every route", async (t) => {
  const { svc, res, doc } = await loadDocument();
  await using _ = svc;

  await t.step("it answers 200 application/json", () => {
    assert.equal(res.status, 200);
    assert.match(res.headers.get("Content-Type")!, /^application\/json/);
  });

  await t.step("it is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.equal(validator.version, "3.1");
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
  });

  await t.step("every route the app serves is documented, and nothing else", () => {
    const served = new Set<string>();
    for (const route of svc.app.routes) {
      if (route.method === "ALL") continue; // middleware
      if (route.path === "/*") continue; // middleware of some methods on every path (body limit)
      const path = route.path.replace(/^\/(api\/)?v1(?=\/)/, "").replace(/:([^/]+)/g, "{$1}");
      served.add(`${route.method.toLowerCase()} ${path}`);
    }
    const documented = new Set(operations(doc).map(([m, p]) => `${m} ${p}`));
    assert.deepEqual([...served].filter((r) => !documented.has(r)), [], "served, undocumented");
    assert.deepEqual([...documented].filter((r) => !served.has(r)), [], "documented, not served");
  });

  await t.step("each versioned route is served under both /api/v1 and /v1", () => {
    const paths = new Set(svc.app.routes.map((r) => `${r.method} ${r.path}`));
    for (const [method, path, op] of operations(doc)) {
      if (doc.paths[path].servers) continue; // a service-root path
      const honoPath = path.replace(/\{([^}]+)\}/g, ":$1");
      for (const prefix of ["/api/v1", "/v1"]) {
        assert.ok(paths.has(`${method.toUpperCase()} ${prefix}${honoPath}`), op.operationId);
      }
    }
  });

  await t.step("paths are listed once, under the servers /api/v1 and /v1", () => {
    assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), ["/api/v1", "/v1"]);
    for (const path of Object.keys(doc.paths)) assert.doesNotMatch(path, /^\/(api\/)?v1\//);
    for (const root of ["/health", "/openapi.json", "/docs"]) {
      assert.ok(doc.paths[root], root);
      assert.deepEqual(doc.paths[root].servers.map((s: { url: string }) => s.url), ["/"]);
    }
  });

  await t.step("operationIds are present and unique", () => {
    const ids = operations(doc).map(([, , op]) => op.operationId);
    assert.ok(ids.every((id) => typeof id === "string" && id.length > 0));
    assert.equal(new Set(ids).size, ids.length);
  });

  await t.step("the security schemes are ApiKeyHeader, BearerApiKey, SessionToken", () => {
    const schemes = doc.components.securitySchemes;
    assert.deepEqual(schemes.ApiKeyHeader, {
      ...schemes.ApiKeyHeader,
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
    });
    assert.equal(schemes.BearerApiKey.type, "http");
    assert.equal(schemes.BearerApiKey.scheme, "bearer");
    assert.equal(schemes.SessionToken.type, "http");
    assert.equal(schemes.SessionToken.bearerFormat, "JWT");
  });

  await t.step("the Problem schema documents every error code as an enum", () => {
    const problem = doc.components.schemas.Problem;
    assert.deepEqual([...problem.properties.code.enum].sort(), Object.keys(ERROR_STATUS).sort());
    for (const code of Object.keys(ERROR_STATUS)) {
      assert.match(doc.info.description, new RegExp(`\\| ${code} \\|`), `${code} is explained`);
    }
  });

  await t.step("every error response is problem+json with the Problem schema", () => {
    for (const [, , op] of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
        if (Number(status) < 400 || (op.operationId === "getHealth" && status === "503")) continue;
        assert.deepEqual(
          response.content?.["application/problem+json"]?.schema,
          { $ref: "#/components/schemas/Problem" },
          `${op.operationId} ${status}`,
        );
      }
    }
  });

  await t.step("every response documents X-Request-Id; every 429 Retry-After", () => {
    for (const [, , op] of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
        assert.ok(response.headers?.["X-Request-Id"], `${op.operationId} ${status}`);
        if (status === "429") assert.ok(response.headers["Retry-After"], op.operationId);
      }
    }
  });

  await t.step("versioned responses document the rate-limit headers", () => {
    for (const [, path, op] of operations(doc)) {
      if (doc.paths[path].servers) continue;
      const headers = op.responses["200"]?.headers ?? op.responses["201"]?.headers ??
        op.responses["202"]?.headers;
      for (const name of ["RateLimit", "RateLimit-Policy", "X-RateLimit-Limit"]) {
        assert.ok(headers[name], `${op.operationId} ${name}`);
      }
    }
    for (const name of ["X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"]) {
      assert.ok(doc.components.headers[name], name);
    }
  });

  await t.step("cursor-paged listings document X-Next-Cursor and Link", () => {
    const paged = operations(doc).filter(([, , op]) =>
      (op.parameters ?? []).some((p: { name: string }) => p.name === "cursor")
    );
    assert.ok(paged.length >= 2);
    for (const [, , op] of paged) {
      const headers = op.responses["200"].headers;
      assert.ok(headers["X-Next-Cursor"], op.operationId);
      assert.ok(headers.Link, op.operationId);
    }
  });

  await t.step("page-paged listings document X-Total-Count and Link", () => {
    for (const [, , op] of operations(doc)) {
      if (!(op.parameters ?? []).some((p: { name: string }) => p.name === "page")) continue;
      assert.ok(op.responses["200"].headers["X-Total-Count"], op.operationId);
      assert.ok(op.responses["200"].headers.Link, op.operationId);
    }
  });
});

// docs/contract.md section 3, and the session-only endpoints of sections 2, 8 and 9.
const ACCESS: [string, string, string][] = [
  ["get", "/tasks", "tasks:read"],
  ["get", "/tasks/me/status", "tasks:read"],
  ["get", "/tasks/me/created", "tasks:read"],
  ["post", "/tasks", "tasks:write"],
  ["patch", "/tasks/{id}", "tasks:write"],
  ["delete", "/tasks/{id}", "tasks:write"],
  ["get", "/users", "profile:read"],
  ["get", "/users/{id}", "profile:read"],
  ["put", "/users/{id}", "profile:write"],
  ["get", "/projects", "projects:read"],
  ["get", "/projects/{id}", "projects:read"],
  ["post", "/projects", "projects:write"],
  ["put", "/projects/{id}", "projects:write"],
  ["delete", "/projects/{id}", "projects:write"],
  ["post", "/tasks/{id}/applications", "applications:write"],
  ["get", "/tasks/{id}/applications", "applications:read"],
  ["get", "/applications/me", "applications:read"],
  ["patch", "/applications/{id}", "applications:write"],
  ["post", "/tasks/{id}/reviews", "reviews:write"],
  ["get", "/reviews/me", "reviews:read"],
  ["get", "/users/{id}/reviews", "public"],
  ["delete", "/users/{id}", "session"],
  ["post", "/keys", "session"],
  ["get", "/keys", "session"],
  ["post", "/users", "public"],
  ["post", "/auth/token", "public"],
  ["get", "/tasks/explore", "public"],
  ["get", "/webhooks", "webhooks:read"],
  ["get", "/webhooks/{id}/deliveries", "webhooks:read"],
  ["post", "/webhooks", "webhooks:write"],
  ["patch", "/webhooks/{id}", "webhooks:write"],
  ["post", "/webhooks/{id}/deliveries/{deliveryId}/resend", "webhooks:write"],
  ["get", "/security-log", "session"],
];

Deno.test("the document states each endpoint's credential and scope (docs/contract.md section 3)", async (t) => {
  const { svc, doc } = await loadDocument();
  await using _ = svc;
  for (const [method, path, access] of ACCESS) {
    const op = doc.paths[path]?.[method];
    if (!op) continue; // an endpoint another part of the service has not landed yet
    await t.step(`${method.toUpperCase()} ${path}: ${access}`, () => {
      const security = op.security as Record<string, string[]>[];
      if (access === "public") {
        assert.ok(security.some((s) => Object.keys(s).length === 0), "credential optional");
      } else if (access === "session") {
        assert.deepEqual(security, [{ SessionToken: [] }]);
      } else {
        assert.deepEqual(security, [
          { ApiKeyHeader: [access] },
          { BearerApiKey: [access] },
          { SessionToken: [] },
        ]);
      }
    });
  }
});

Deno.test("the document states section 14: the grace body, the new key fields, the usage route", async (t) => {
  const { svc, doc } = await loadDocument();
  await using _ = svc;
  const schemas = doc.components.schemas;

  await t.step("regenerate takes an optional body with expireCurrentIn now|1h|24h|7d", () => {
    const body = doc.paths["/keys/{id}/regenerate"].post.requestBody;
    assert.equal(body.required, false);
    const schema = body.content["application/json"].schema;
    const resolved = schema.$ref ? schemas[schema.$ref.split("/").at(-1)] : schema;
    assert.deepEqual(resolved.properties.expireCurrentIn.enum, ["now", "1h", "24h", "7d"]);
    assert.equal(resolved.properties.expireCurrentIn.default, "now");
    assert.equal(resolved.additionalProperties, false);
  });

  await t.step("key metadata has previousExpiresAt, lastUsedIp and rateLimitPerHour", () => {
    for (const field of ["previousExpiresAt", "lastUsedIp", "rateLimitPerHour"]) {
      assert.ok(schemas.ApiKey.properties[field], field);
      assert.ok(schemas.ApiKey.required.includes(field), field);
    }
    assert.ok(schemas.ApiKeyCreate.properties.rateLimitPerHour);
    assert.ok(schemas.ApiKeyUpdate.properties.rateLimitPerHour);
  });

  await t.step("GET /keys/{id}/usage takes range=24h|7d|90d and answers the series", () => {
    const op = doc.paths["/keys/{id}/usage"].get;
    const range = op.parameters.find((p: Doc) => p.name === "range");
    assert.equal(range.in, "query");
    assert.deepEqual(range.schema.enum, ["24h", "7d", "90d"]);
    assert.deepEqual(op.security, [{ SessionToken: [] }]);
    const point = schemas.ApiKeyUsagePoint.properties;
    assert.deepEqual(Object.keys(point).sort(), [
      "clientError",
      "ok",
      "rateLimited",
      "serverError",
      "start",
    ]);
    assert.deepEqual(schemas.ApiKeyUsage.properties.bucket.enum, ["hour", "day"]);
  });
});

Deno.test("GET /tasks/me/status documents its default status, published", async () => {
  const { svc, doc } = await loadDocument();
  await using _ = svc;
  const status = doc.paths["/tasks/me/status"].get.parameters.find((p: Doc) => p.name === "status");
  assert.equal(status.required, false);
  assert.equal(status.schema.default, "published");
  assert.deepEqual(status.schema.enum, ["published", "completed", "cancelled"]);
  assert.match(status.description, /published/);
});
