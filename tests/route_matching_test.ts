import assert from "node:assert/strict";
import { bearer, setup, signUp } from "./helpers.ts";

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

  await t.step("every path parameter of the API is a UUID", async () => {
    const doc = await (await svc.request("/openapi.json")).json();
    let seen = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item as Record<string, { parameters?: unknown[] }>)) {
        const params = (op.parameters ?? []) as { in: string; name: string; schema: unknown }[];
        for (const param of params.filter((p) => p.in === "path")) {
          seen++;
          assert.equal(
            (param.schema as { format?: string }).format,
            "uuid",
            `${path} {${param.name}}: teach PARAM_SEGMENT in routes/app.ts its shape`,
          );
        }
      }
    }
    assert.ok(seen > 0);
  });
});
