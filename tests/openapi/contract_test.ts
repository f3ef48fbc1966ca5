/**
 * Contract test: calls every operation of the OpenAPI document, successfully and in the usual
 * failure modes, and checks each answer against what the document says: the status is listed,
 * the body matches the schema (compiled by Ajv, JSON Schema 2020-12), the headers are there.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { SCOPES } from "../../domain/auth.ts";
import { HAPPY, newTask, VALID_BODY } from "./contract_fixtures.ts";
import type { Session } from "./contract_session.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

// ajv-formats is CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

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
