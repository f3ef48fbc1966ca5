/**
 * Contract test: calls every operation of the OpenAPI document, successfully and in the usual
 * failure modes, and checks each answer against what the document says: the status is listed,
 * the body matches the schema (compiled by Ajv, JSON Schema 2020-12), the headers are there.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "./helpers.ts";
import { SCOPES } from "../domain/auth.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;
type Call = { path: string; init?: Parameters<TestContext["request"]>[1] };

interface Session {
  svc: TestContext;
  user: Awaited<ReturnType<typeof signUp>>;
  other: Awaited<ReturnType<typeof signUp>>;
  key: string;
}

// ajv-formats is CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A request that should succeed, for each operation, as "METHOD /path" of the document. */
const HAPPY: Record<string, (s: Session) => Promise<Call>> = {
  "GET /health": () => Promise.resolve({ path: "/health" }),
  "GET /openapi.json": () => Promise.resolve({ path: "/openapi.json" }),
  "GET /docs": () => Promise.resolve({ path: "/docs" }),
  "GET /favicon.ico": () => Promise.resolve({ path: "/favicon.ico" }),
  "GET /dashboard": () => Promise.resolve({ path: "/dashboard" }),
  "GET /dashboard/app.js": () => Promise.resolve({ path: "/dashboard/app.js" }),
  "GET /dashboard/app.css": () => Promise.resolve({ path: "/dashboard/app.css" }),
  "GET /dashboard/chart.js": () => Promise.resolve({ path: "/dashboard/chart.js" }),
  "POST /users": () =>
    Promise.resolve({
      path: "/v1/users",
      init: {
        method: "POST",
        json: {
          email: `c-${crypto.randomUUID()}@example.com`,
          password: "long enough password",
          firstName: "Grace",
          lastName: "Hopper",
          profilePic: "https://img.example.com/grace.png",
        },
      },
    }),
  "GET /users/me": (s) => Promise.resolve({ path: "/v1/users/me", init: { headers: k(s) } }),
  "GET /users": (s) => Promise.resolve({ path: "/v1/users?limit=1", init: { headers: k(s) } }),
  "GET /users/{id}": (s) =>
    Promise.resolve({ path: `/api/v1/users/${s.other.id}`, init: { headers: k(s) } }),
  "PUT /users/{id}": (s) =>
    Promise.resolve({
      path: `/v1/users/${s.user.id}`,
      init: { method: "PUT", headers: k(s), json: { lastName: null } },
    }),
  "DELETE /users/{id}": async (s) => {
    const doomed = await signUp(s.svc);
    return {
      path: `/v1/users/${doomed.id}`,
      init: { method: "DELETE", headers: bearer(doomed.token) },
    };
  },
  "POST /auth/token": (s) =>
    Promise.resolve({
      path: "/v1/auth/token",
      init: { method: "POST", json: { email: s.user.email, password: s.user.password } },
    }),
  "POST /auth/logout": async (s) => {
    const { token } = await signUp(s.svc);
    return { path: "/v1/auth/logout", init: { method: "POST", headers: bearer(token) } };
  },
  "POST /keys": (s) =>
    Promise.resolve({
      path: "/api/v1/keys",
      init: {
        method: "POST",
        headers: bearer(s.user.token),
        json: { name: "contract", scopes: ["tasks:read"], expiresInDays: 7, ipWhitelist: ["::1"] },
      },
    }),
  "GET /keys": (s) =>
    Promise.resolve({ path: "/api/v1/keys", init: { headers: bearer(s.user.token) } }),
  "PATCH /keys/{id}": async (s) => {
    const key = await createKey(s.svc, s.user.token);
    return {
      path: `/api/v1/keys/${key.id}`,
      init: {
        method: "PATCH",
        headers: bearer(s.user.token),
        json: { name: "renamed", rateLimitPerHour: 50 },
      },
    };
  },
  "POST /keys/{id}/regenerate": async (s) => {
    const key = await createKey(s.svc, s.user.token);
    return {
      path: `/api/v1/keys/${key.id}/regenerate`,
      init: { method: "POST", headers: bearer(s.user.token), json: { expireCurrentIn: "1h" } },
    };
  },
  "GET /keys/{id}/usage": async (s) => {
    const key = await createKey(s.svc, s.user.token);
    for (const status of [200, 404]) {
      const path = status === 200 ? "/v1/users/me" : `/v1/tasks/${crypto.randomUUID()}`;
      await (await s.svc.request(path, { headers: apiKey(key.value) })).body?.cancel();
    }
    s.svc.deps.usage.release();
    await s.svc.deps.rateLimiter.sync();
    return {
      path: `/api/v1/keys/${key.id}/usage?range=7d`,
      init: { headers: bearer(s.user.token) },
    };
  },
  "DELETE /keys/{id}": async (s) => {
    const key = await createKey(s.svc, s.user.token);
    return {
      path: `/api/v1/keys/${key.id}`,
      init: { method: "DELETE", headers: bearer(s.user.token) },
    };
  },
  "GET /projects": async (s) => {
    await newProject(s);
    await newProject(s);
    return { path: "/v1/projects?limit=1", init: { headers: k(s) } };
  },
  "POST /projects": (s) =>
    Promise.resolve({
      path: "/v1/projects",
      init: { method: "POST", headers: k(s), json: { name: "Roof", description: "Fix tiles" } },
    }),
  "GET /projects/{id}": async (s) => ({
    path: `/v1/projects/${await newProject(s)}`,
    init: { headers: k(s) },
  }),
  "PUT /projects/{id}": async (s) => ({
    path: `/v1/projects/${await newProject(s)}`,
    init: { method: "PUT", headers: k(s), json: { description: "" } },
  }),
  "DELETE /projects/{id}": async (s) => ({
    path: `/v1/projects/${await newProject(s)}`,
    init: { method: "DELETE", headers: k(s) },
  }),
};

const TASK = {
  title: "Fix a leaking tap",
  description: "The kitchen tap drips all night",
  budget: 40,
  currency: "EUR",
  location: { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" },
  requirement: "Bring a washer kit",
  dueDate: "2026-12-31",
};

async function newTask(s: Session): Promise<string> {
  const res = await s.svc.request("/api/v1/tasks", { method: "POST", headers: k(s), json: TASK });
  return (await res.json()).id;
}

Object.assign(HAPPY, {
  "POST /tasks": (s: Session) =>
    Promise.resolve({
      path: "/api/v1/tasks",
      init: { method: "POST", headers: { ...k(s), "Idempotency-Key": "contract-1" }, json: TASK },
    }),
  "GET /tasks": async (s: Session) => {
    await newTask(s);
    await newTask(s);
    return { path: "/api/v1/tasks?limit=1&payment=Paid&search=tap", init: { headers: k(s) } };
  },
  "GET /tasks/me/status": async (s: Session) => {
    await newTask(s);
    return { path: "/api/v1/tasks/me/status?limit=1&page=2", init: { headers: k(s) } };
  },
  "GET /tasks/me/created": async (s: Session) => {
    await newTask(s);
    return { path: "/api/v1/tasks/me/created", init: { headers: k(s) } };
  },
  "GET /tasks/explore": async (s: Session) => {
    await newTask(s);
    return { path: "/api/v1/tasks/explore?latitude=48.85&longitude=2.35&radiusKm=10" };
  },
  "GET /tasks/{id}": async (s: Session) => ({ path: `/api/v1/tasks/${await newTask(s)}` }),
  "PATCH /tasks/{id}": async (s: Session) => ({
    path: `/api/v1/tasks/${await newTask(s)}`,
    init: { method: "PATCH", headers: k(s), json: { budget: 55.5, dueDate: null } },
  }),
  "DELETE /tasks/{id}": async (s: Session) => ({
    path: `/api/v1/tasks/${await newTask(s)}`,
    init: { method: "DELETE", headers: k(s) },
  }),
  "GET /users/{id}/avatar.svg": (s: Session) =>
    Promise.resolve({ path: `/v1/users/${s.other.id}/avatar.svg` }),
});

/** A task of the session's user with a pending application of the other user; its id. */
async function newApplication(s: Session): Promise<string> {
  const res = await s.svc.request(`/api/v1/tasks/${await newTask(s)}/applications`, {
    method: "POST",
    headers: bearer(s.other.token),
    json: { message: "I have the washers" },
  });
  return (await res.json()).id;
}

Object.assign(HAPPY, {
  "POST /tasks/{id}/applications": async (s: Session) => ({
    path: `/api/v1/tasks/${await newTask(s)}/applications`,
    init: {
      method: "POST",
      headers: bearer(s.other.token),
      json: { message: "Tomorrow morning?", price: 35.5 },
    },
  }),
  "GET /tasks/{id}/applications": async (s: Session) => {
    const taskId = await newTask(s);
    await s.svc.request(`/api/v1/tasks/${taskId}/applications`, {
      method: "POST",
      headers: bearer(s.other.token),
      json: { message: "Me" },
    });
    return { path: `/api/v1/tasks/${taskId}/applications?limit=1`, init: { headers: k(s) } };
  },
  "GET /applications/me": async (s: Session) => {
    await newApplication(s);
    return { path: "/v1/applications/me?limit=1", init: { headers: bearer(s.other.token) } };
  },
  "PATCH /applications/{id}": async (s: Session) => ({
    path: `/api/v1/applications/${await newApplication(s)}`,
    init: { method: "PATCH", headers: k(s), json: { status: "accepted" } },
  }),
});

/** An alert of the session's user: its id. */
async function newAlert(s: Session): Promise<string> {
  const res = await s.svc.request("/api/v1/alerts", {
    method: "POST",
    headers: k(s),
    json: { name: "Taps", filters: { search: "tap", countryCode: "FR" } },
  });
  return (await res.json()).id;
}

Object.assign(HAPPY, {
  "POST /alerts": (s: Session) =>
    Promise.resolve({
      path: "/api/v1/alerts",
      init: {
        method: "POST",
        headers: k(s),
        json: { name: "Near me", filters: { latitude: 48.85, longitude: 2.35, radiusKm: 5 } },
      },
    }),
  "GET /alerts": async (s: Session) => {
    await newAlert(s);
    return { path: "/api/v1/alerts", init: { headers: k(s) } };
  },
  "GET /alerts/{id}": async (s: Session) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: { headers: k(s) },
  }),
  "PATCH /alerts/{id}": async (s: Session) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: { method: "PATCH", headers: k(s), json: { enabled: false, filters: { minBudget: 5 } } },
  }),
  "DELETE /alerts/{id}": async (s: Session) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: { method: "DELETE", headers: k(s) },
  }),
  "GET /alerts/{id}/matches": async (s: Session) => ({
    path: `/api/v1/alerts/${await newAlert(s)}/matches?limit=1`,
    init: { headers: k(s) },
  }),
});

/** A valid body for an operation whose empty body is refused, so an unknown id answers 404. */
const VALID_BODY: Record<string, unknown> = {
  "POST /tasks/{id}/applications": { message: "Hello" },
  "PATCH /applications/{id}": { status: "withdrawn" },
  "POST /alerts": { name: "x", filters: { minBudget: 1 } },
};

const PUBLIC_HOOK = "https://93.184.215.14/hook";

/** An endpoint of a fresh account (the 10-endpoint limit stays far), and its session. */
async function newWebhook(s: Session): Promise<{ id: string; headers: HeadersInit }> {
  const { token } = await signUp(s.svc);
  const res = await s.svc.request("/v1/webhooks", {
    method: "POST",
    headers: bearer(token),
    json: { url: PUBLIC_HOOK, events: ["*"] },
  });
  return { id: (await res.json()).id, headers: bearer(token) };
}

Object.assign(HAPPY, {
  "POST /webhooks": (s: Session) =>
    Promise.resolve({
      path: "/v1/webhooks",
      init: {
        method: "POST",
        headers: k(s),
        json: { url: PUBLIC_HOOK, events: ["task.created"], description: "CI" },
      },
    }),
  "GET /webhooks": async (s: Session) => {
    const hook = await newWebhook(s);
    return { path: "/v1/webhooks", init: { headers: hook.headers } };
  },
  "GET /webhooks/{id}": async (s: Session) => {
    const hook = await newWebhook(s);
    return { path: `/v1/webhooks/${hook.id}`, init: { headers: hook.headers } };
  },
  "PATCH /webhooks/{id}": async (s: Session) => {
    const hook = await newWebhook(s);
    return {
      path: `/v1/webhooks/${hook.id}`,
      init: { method: "PATCH", headers: hook.headers, json: { enabled: false } },
    };
  },
  "DELETE /webhooks/{id}": async (s: Session) => {
    const hook = await newWebhook(s);
    return { path: `/v1/webhooks/${hook.id}`, init: { method: "DELETE", headers: hook.headers } };
  },
  "POST /webhooks/{id}/rotate-secret": async (s: Session) => {
    const hook = await newWebhook(s);
    return {
      path: `/v1/webhooks/${hook.id}/rotate-secret`,
      init: { method: "POST", headers: hook.headers },
    };
  },
  "POST /webhooks/{id}/test": async (s: Session) => {
    const hook = await newWebhook(s);
    return {
      path: `/v1/webhooks/${hook.id}/test`,
      init: { method: "POST", headers: hook.headers },
    };
  },
  "GET /webhooks/{id}/deliveries": async (s: Session) => {
    const hook = await newWebhook(s);
    for (let i = 0; i < 2; i++) {
      await s.svc.request(`/v1/webhooks/${hook.id}/test`, {
        method: "POST",
        headers: hook.headers,
      });
    }
    return { path: `/v1/webhooks/${hook.id}/deliveries?limit=1`, init: { headers: hook.headers } };
  },
  "POST /webhooks/{id}/deliveries/{deliveryId}/resend": async (s: Session) => {
    const hook = await newWebhook(s);
    const delivery = await (await s.svc.request(`/v1/webhooks/${hook.id}/test`, {
      method: "POST",
      headers: hook.headers,
    })).json();
    return {
      path: `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/resend`,
      init: { method: "POST", headers: hook.headers },
    };
  },
  "GET /security-log": async (s: Session) => {
    const { token } = await signUp(s.svc);
    await signUp(s.svc);
    await s.svc.request("/v1/auth/logout", { method: "POST", headers: bearer(token) });
    const again = await signUp(s.svc);
    await s.svc.request("/v1/keys", {
      method: "POST",
      headers: bearer(again.token),
      json: { name: "log", scopes: ["tasks:read"], expiresInDays: 1 },
    });
    return { path: "/v1/security-log?limit=1", init: { headers: bearer(again.token) } };
  },
});

function k(s: Session): HeadersInit {
  return apiKey(s.key);
}

async function newProject(s: Session): Promise<string> {
  const res = await s.svc.request("/v1/projects", {
    method: "POST",
    headers: k(s),
    json: { name: "Fixture" },
  });
  return (await res.json()).id;
}

const METHODS = ["get", "put", "post", "delete", "patch"];

function pointer(...parts: string[]): string {
  return "#/" + parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

/** Checks one answer against the operation's documentation; returns the status. */
async function conforms(
  ajv: Ajv2020,
  doc: Doc,
  answer: { method: string; path: string; res: Response },
): Promise<number> {
  const { method, path, res } = answer;
  const op = doc.paths[path][method];
  const label = `${method.toUpperCase()} ${path} → ${res.status}`;
  const text = await res.text();
  const status = String(res.status);
  const documented = op.responses[status];
  assert.ok(documented, `${label} is not a documented status: ${text.slice(0, 300)}`);
  for (const [name, header] of Object.entries(documented.headers ?? {}) as [string, Doc][]) {
    const target = header.$ref ? doc.components.headers[header.$ref.split("/").at(-1)] : header;
    if (target.required || name === "X-Request-Id") {
      assert.ok(res.headers.get(name), `${label} lacks the header ${name}`);
    }
  }
  for (const name of ["X-Next-Cursor", "Link", "X-Total-Count", "Location", "Retry-After"]) {
    if (res.headers.get(name) && !["Retry-After"].includes(name)) {
      assert.ok(documented.headers?.[name], `${label} sends the undocumented header ${name}`);
    }
  }
  const type = (res.headers.get("Content-Type") ?? "").split(";")[0].trim();
  const media = documented.content?.[type];
  assert.ok(
    media,
    `${label} answers ${type}, documented: ${Object.keys(documented.content ?? {})}`,
  );
  if (type.endsWith("json")) {
    const validate = ajv.getSchema(
      "openapi.json" +
        pointer("paths", path, method, "responses", status, "content", type, "schema"),
    );
    assert.ok(validate, `${label}: no schema`);
    const body = JSON.parse(text);
    assert.ok(
      validate(body),
      `${label} body does not match its schema: ${JSON.stringify(validate.errors)}\n${text}`,
    );
  }
  return res.status;
}

Deno.test("every documented operation answers as its OpenAPI documentation says", async (t) => {
  await using svc = await setup();
  const doc: Doc = await (await svc.request("/openapi.json")).json();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi.json");

  const user = await signUp(svc, { firstName: "Ada" });
  const other = await signUp(svc, { firstName: "Bob" });
  const key = await createKey(svc, user.token, {
    scopes: [...SCOPES],
  });
  const narrowKey = await createKey(svc, user.token, { scopes: ["tasks:read"] });
  const session: Session = { svc, user, other, key: key.value };

  const ops: [string, string, Doc][] = Object.entries(doc.paths as Record<string, Doc>)
    .flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => [m, path, item[m]] as [string, string, Doc])
    );
  const concrete = (path: string) =>
    (doc.paths[path].servers ? "" : "/v1") +
    path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");

  await t.step("every operation has a success case in this test", () => {
    const missing = ops.map(([m, p]) => `${m.toUpperCase()} ${p}`).filter((op) => !HAPPY[op]);
    assert.deepEqual(missing, [], "add a HAPPY entry for each");
  });

  await t.step("GET /tasks/explore as GeoJSON answers the documented geo+json schema", async () => {
    await newTask(session);
    const res = await svc.request(
      "/api/v1/tasks/explore?latitude=48.85&longitude=2.35&radiusKm=10&sort=distance",
      { headers: { Accept: "application/geo+json" } },
    );
    assert.match(res.headers.get("Content-Type") ?? "", /^application\/geo\+json/);
    assert.equal(await conforms(ajv, doc, { method: "get", path: "/tasks/explore", res }), 200);
  });

  for (const [method, path, op] of ops) {
    const name = `${method.toUpperCase()} ${path}`;
    await t.step(`${name} succeeds with a documented 2xx answer`, async () => {
      const fixture = HAPPY[name];
      if (!fixture) return;
      const call = await fixture(session);
      const status = await conforms(ajv, doc, {
        method,
        path,
        res: await svc.request(call.path, call.init),
      });
      assert.ok(status >= 200 && status < 300, `${name} answered ${status}`);
    });

    await t.step(`${name} without a credential answers as documented`, async () => {
      const res = await svc.request(concrete(path), {
        method: method.toUpperCase(),
        ...(op.requestBody ? { json: {} } : {}),
      });
      await conforms(ajv, doc, { method, path, res });
    });

    const needsKey = (op.security ?? []).some((s: Doc) => s.ApiKeyHeader?.length);
    if (needsKey) {
      await t.step(`${name} with a key lacking its scope answers 403 as documented`, async () => {
        const res = await svc.request(concrete(path), {
          method: method.toUpperCase(),
          headers: apiKey(narrowKey.value),
          ...(op.requestBody ? { json: {} } : {}),
        });
        if (op.security.some((s: Doc) => s.ApiKeyHeader?.includes("tasks:read"))) {
          await res.body?.cancel();
          return;
        }
        assert.equal(await conforms(ajv, doc, { method, path, res }), 403);
      });
    }

    const credential = (op.security ?? []).every((s: Doc) => "SessionToken" in s)
      ? bearer(user.token)
      : apiKey(key.value);
    if (path.includes("{")) {
      await t.step(`${name} with an unknown id answers 404 as documented`, async () => {
        const res = await svc.request(concrete(path), {
          method: method.toUpperCase(),
          headers: credential,
          ...(op.requestBody ? { json: VALID_BODY[name] ?? {} } : {}),
        });
        assert.equal(await conforms(ajv, doc, { method, path, res }), 404);
      });
    }
    if (op.requestBody) {
      await t.step(`${name} with a body of wrong types answers 400 as documented`, async () => {
        const target = path.includes("{")
          ? (await HAPPY[name]?.(session))?.path ?? concrete(path)
          : concrete(path);
        const res = await svc.request(target, {
          method: method.toUpperCase(),
          headers: credential,
          json: { name: 42, firstName: 42, email: 42, scopes: 42, title: 42, url: 42, events: 42 },
        });
        assert.equal(await conforms(ajv, doc, { method, path, res }), 400);
      });
    }
  }
});
