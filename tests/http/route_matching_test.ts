import assert from "node:assert/strict";
import { z } from "@hono/zod-openapi";
import { createApp } from "../../routes/app.ts";
import { defineRoute, type Register } from "../../routes/router/define.ts";
import { bearer, setup, signUp } from "../helpers.ts";

Deno.test("a path id is a UUID: other segments are no path at all", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const id = crypto.randomUUID();

  const call = async (method: string, path: string, headers: HeadersInit = {}) => {
    const res = await svc.request(path, { method, headers });
    const text = await res.text();
    return { status: res.status, allow: res.headers.get("Allow"), body: JSON.parse(text || "{}") };
  };

  for (
    const path of [
      "/v1/tasks/not-an-id",
      "/api/v1/tasks/123",
      "/v1/projects/not-an-id",
      "/v1/users/not-an-id",
      "/api/v1/keys/not-an-id",
      "/api/v1/keys/not-an-id/regenerate",
      "/v1/users/me/avatar.svg",
    ]
  ) {
    await t.step(`${path} answers 404 NOT_FOUND for every method, before credentials`, async () => {
      for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
        for (const headers of [{}, bearer(user.token)]) {
          const res = await call(method, path, headers);
          assert.equal(res.status, 404, `${method} ${path}`);
          assert.equal(res.allow, null);
          if (method !== "HEAD") assert.equal(res.body.code, "NOT_FOUND", `${method} ${path}`);
        }
      }
    });
  }

  await t.step("a UUID path with another method answers 405 with its Allow", async () => {
    const res = await call("POST", `/v1/tasks/${id}`);
    assert.equal(res.status, 405);
    assert.equal(res.body.code, "METHOD_NOT_ALLOWED");
    assert.deepEqual(res.allow!.split(", ").sort(), ["DELETE", "GET", "HEAD", "PATCH"]);
  });

  await t.step("a UUID path is checked for credentials as before", async () => {
    const res = await call("PATCH", `/v1/tasks/${id}`);
    assert.equal(res.status, 401);
    assert.equal(res.body.code, "TOKEN_MISSING");
  });

  for (const path of ["/v1/tasks/explore", "/api/v1/tasks/me/status", "/v1/tasks/me/created"]) {
    await t.step(`${path} is not also /tasks/{id}: PATCH is 405 Allow: GET, HEAD`, async () => {
      const res = await call("PATCH", path, bearer(user.token));
      assert.equal(res.status, 405);
      assert.equal(res.allow, "GET, HEAD");
    });
  }

  await t.step("the API is served under its prefixes only: /tasks is no path", async () => {
    for (const path of ["/tasks", "/tasks/explore", `/tasks/${id}`, "/users/me"]) {
      const res = await call("GET", path, bearer(user.token));
      assert.equal(res.status, 404, path);
    }
    // The document lists /tasks once, as a versioned path (no root `servers` of its own).
    const doc = await (await svc.request("/openapi.json")).json();
    assert.equal(doc.paths["/tasks"].servers, undefined);
  });

  await t.step("the parameters the API declares are UUIDs, so the rows above hold", async () => {
    const doc = await (await svc.request("/openapi.json")).json();
    let seen = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item as Record<string, { parameters?: unknown[] }>)) {
        const params = (op.parameters ?? []) as { in: string; name: string; schema: unknown }[];
        for (const param of params.filter((p) => p.in === "path")) {
          seen++;
          assert.equal((param.schema as { format?: string }).format, "uuid", path);
        }
      }
    }
    assert.ok(seen > 0);
  });
});

/** Routes of a shape the API has none of yet: a parameter that is a name, beside static paths. */
const registerNamed: Register = (api) => {
  const text = { 200: { description: "ok", content: { "text/plain": { schema: z.string() } } } };
  const Name = z.object({ name: z.string().regex(/^[a-z][a-z0-9-]*$/) });
  // Declared before the static path it would shadow if Hono were given them in this order.
  api.openapi(
    defineRoute("public", {
      method: "get",
      path: "/named/{name}",
      request: { params: Name },
      responses: text,
    }),
    (c) => c.text(`named ${c.req.valid("param").name}`, 200),
  );
  api.openapi(
    defineRoute("session", {
      method: "delete",
      path: "/named/{name}",
      request: { params: Name },
      responses: text,
    }),
    (c) => c.text(`deleted ${c.req.valid("param").name}`, 200),
  );
  api.openapi(
    defineRoute("public", { method: "get", path: "/named/special", responses: text }),
    (c) => c.text("the special one", 200),
  );
  api.openapi(
    defineRoute("public", {
      method: "get",
      path: "/named/{name}/parts/{id}",
      request: { params: Name.extend({ id: z.uuid() }) },
      responses: text,
    }),
    (c) => c.text(`part ${c.req.valid("param").id} of ${c.req.valid("param").name}`, 200),
  );
};

Deno.test("a parameter that is not a UUID is served, with 404 and 405 from the same table", async (t) => {
  await using svc = await setup();
  const app = createApp(svc.deps, { routes: [registerNamed] });
  const call = async (method: string, path: string) => {
    const res = await app.request(path, { method }, {
      remoteAddr: { hostname: "203.0.113.10", port: 40000, transport: "tcp" },
    });
    return { status: res.status, allow: res.headers.get("Allow"), text: await res.text() };
  };

  await t.step("a name is served by its route, under both prefixes", async () => {
    for (const prefix of ["/v1", "/api/v1"]) {
      const res = await call("GET", `${prefix}/named/blue-house`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.text, "named blue-house");
    }
  });

  await t.step("the static path declared after it still answers for itself", async () => {
    const res = await call("GET", "/v1/named/special");
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, "the special one");
  });

  await t.step("another method on a name is 405 with the route's Allow", async () => {
    const res = await call("PUT", "/v1/named/blue-house");
    assert.equal(res.status, 405);
    assert.deepEqual(res.allow!.split(", ").sort(), ["DELETE", "GET", "HEAD"]);
    const credentials = await call("DELETE", "/v1/named/blue-house");
    assert.equal(credentials.status, 401, "DELETE is the route's, so credentials are asked for");
  });

  await t.step(
    "the static path owns its methods: DELETE there is 405, Allow: GET, HEAD",
    async () => {
      const res = await call("DELETE", "/v1/named/special");
      assert.equal(res.status, 405);
      assert.equal(res.allow, "GET, HEAD");
    },
  );

  await t.step("a segment the parameter's schema refuses is no path: 404", async () => {
    for (const path of ["/v1/named/Not_A_Name", "/v1/named/blue-house/parts/not-an-id"]) {
      const res = await call("GET", path);
      assert.equal(res.status, 404, path);
      assert.equal(JSON.parse(res.text).code, "NOT_FOUND");
    }
  });

  await t.step("two parameters of two shapes in one path", async () => {
    const id = crypto.randomUUID();
    const res = await call("GET", `/v1/named/blue-house/parts/${id}`);
    assert.equal(res.text, `part ${id} of blue-house`);
  });

  await t.step("a preflight of a name lists its methods", async () => {
    const res = await app.request("/v1/named/blue-house", {
      method: "OPTIONS",
      headers: { Origin: "https://example.com", "Access-Control-Request-Method": "DELETE" },
    });
    assert.equal(res.status, 204);
    const methods = res.headers.get("Access-Control-Allow-Methods")!.split(",").sort();
    assert.deepEqual(methods, ["DELETE", "GET", "HEAD"]);
  });
});

Deno.test("the versioned API is served under /api/v1 and /v1 only, and documented so", async () => {
  await using svc = await setup();
  for (const path of ["/api/v1/tasks/explore", "/v1/tasks/explore"]) {
    const res = await svc.request(path);
    await res.body?.cancel();
    assert.equal(res.status, 200, path);
  }
  const root = await svc.request("/tasks/explore");
  await root.body?.cancel();
  assert.equal(root.status, 404, "GET /tasks/explore at the root is no path");
  const doc = await (await svc.request("/openapi.json")).json();
  const atRoot = Object.entries(doc.paths as Record<string, { servers?: { url: string }[] }>)
    .filter(([, item]) => item.servers?.some((s) => s.url === "/"))
    .map(([path]) => path);
  assert.deepEqual(atRoot, [
    "/health",
    "/favicon.ico",
    "/",
    "/openapi.json",
    "/docs",
    "/dashboard",
    "/dashboard/app.js",
    "/dashboard/app.css",
    "/dashboard/chart.js",
  ]);
});
