import assert from "node:assert/strict";
import { apiKey, createKey, setup, signUp } from "../helpers.ts";

const ORIGIN = "https://client.example";

const listOf = (value: string | null) =>
  (value ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean).sort();

Deno.test("browser clients on other origins may call the API (CORS)", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const { value: key } = await createKey(svc, user.token);

  for (const prefix of ["/api/v1", "/v1"]) {
    await t.step(
      `OPTIONS ${prefix}/tasks preflight answers 204 with the path's methods`,
      async () => {
        const res = await svc.request(`${prefix}/tasks`, {
          method: "OPTIONS",
          headers: {
            Origin: ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "x-api-key, content-type, idempotency-key",
          },
        });
        assert.equal(res.status, 204);
        assert.equal(await res.text(), "");
        assert.equal(res.headers.get("Access-Control-Allow-Origin"), "*");
        assert.deepEqual(listOf(res.headers.get("Access-Control-Allow-Methods")), [
          "get",
          "head",
          "post",
        ]);
        const allowed = listOf(res.headers.get("Access-Control-Allow-Headers"));
        for (const name of ["authorization", "x-api-key", "content-type", "idempotency-key"]) {
          assert.ok(allowed.includes(name), `${name} in ${allowed}`);
        }
        assert.ok(Number(res.headers.get("Access-Control-Max-Age")) > 0);
        assert.equal(res.headers.get("Access-Control-Allow-Credentials"), null);
      },
    );
  }

  await t.step("a preflight of a parameterized path lists that path's methods", async () => {
    const res = await svc.request(`/v1/tasks/${crypto.randomUUID()}`, {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "PATCH" },
    });
    assert.equal(res.status, 204);
    assert.deepEqual(listOf(res.headers.get("Access-Control-Allow-Methods")), [
      "delete",
      "get",
      "head",
      "patch",
    ]);
  });

  await t.step("a preflight of an unknown path answers 404", async () => {
    const res = await svc.request("/v1/nowhere", {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "GET" },
    });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });

  await t.step("a successful answer allows any origin and exposes the API's headers", async () => {
    const res = await svc.request("/api/v1/tasks?limit=1", {
      headers: { ...apiKey(key), Origin: ORIGIN },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(res.headers.get("Access-Control-Allow-Origin"), "*");
    assert.equal(res.headers.get("Access-Control-Allow-Credentials"), null);
    const exposed = listOf(res.headers.get("Access-Control-Expose-Headers"));
    for (const name of ["x-request-id", "link", "x-next-cursor", "retry-after", "ratelimit"]) {
      assert.ok(exposed.includes(name), `${name} in ${exposed}`);
    }
  });

  await t.step(
    "an error answer carries CORS headers too, so its problem body is readable",
    async () => {
      const res = await svc.request("/v1/users/me", { headers: { Origin: ORIGIN } });
      assert.equal(res.status, 401);
      await res.body?.cancel();
      assert.equal(res.headers.get("Access-Control-Allow-Origin"), "*");
    },
  );

  await t.step("other wrong methods still answer 405 with Allow", async () => {
    const res = await svc.request("/v1/tasks", { method: "PUT", headers: { Origin: ORIGIN } });
    assert.equal(res.status, 405);
    assert.equal((await res.json()).code, "METHOD_NOT_ALLOWED");
    assert.deepEqual(listOf(res.headers.get("Allow")), ["get", "head", "post"]);
  });

  await t.step("the dashboard stays same-origin: no CORS headers, OPTIONS is 405", async () => {
    const get = await svc.request("/dashboard", { headers: { Origin: ORIGIN } });
    await get.body?.cancel();
    assert.equal(get.headers.get("Access-Control-Allow-Origin"), null);
    const options = await svc.request("/dashboard", {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "GET" },
    });
    assert.equal(options.status, 405);
    assert.equal(options.headers.get("Access-Control-Allow-Origin"), null);
    await options.body?.cancel();
  });

  await t.step("every header the OpenAPI document names is allowed or exposed", async () => {
    const doc = await (await svc.request("/openapi.json")).json();
    const preflight = await svc.request("/v1/tasks", {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "GET" },
    });
    const allowed = listOf(preflight.headers.get("Access-Control-Allow-Headers"));
    const exposed = listOf(preflight.headers.get("Access-Control-Expose-Headers"));
    // Content-Type is CORS-safelisted in responses.
    const safelisted = ["content-type"];
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!/^\/(users|auth|keys|projects|tasks)/.test(path)) continue;
      for (const op of Object.values(item as Record<string, Record<string, unknown>>)) {
        const params = (op.parameters ?? []) as { in: string; name: string }[];
        for (const p of params.filter((p) => p.in === "header")) {
          assert.ok(allowed.includes(p.name.toLowerCase()), `request header ${p.name} (${path})`);
        }
        const responses = (op.responses ?? {}) as Record<string, { headers?: object }>;
        for (const response of Object.values(responses)) {
          for (const name of Object.keys(response.headers ?? {})) {
            const lower = name.toLowerCase();
            assert.ok(
              exposed.includes(lower) || safelisted.includes(lower),
              `response header ${name} (${path})`,
            );
          }
        }
      }
    }
  });
});
