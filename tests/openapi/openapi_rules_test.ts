/**
 * The document and the service hold each other to the same rules: requests generated as invalid
 * from each operation's schemas are refused with 400 (the other direction, the suite's invalid
 * requests being invalid by the schemas, is openapi_rules_examples_test.ts).
 */
import assert from "node:assert/strict";
import { bearer, createKey, setup, signUp, type TestContext } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";
import {
  loadDocument,
  RELAXED,
  resolver,
  type Schema,
  validators,
} from "./openapi_rules_fixtures.ts";

interface Mutation {
  rule: string;
  value: unknown;
}

/** A value `pattern` refuses, from a few kinds of text that schemas commonly rule out. */
function breaking(pattern: string): string | undefined {
  const re = new RegExp(pattern, "u");
  return ["!!", "\u0001", " ", "lower", "http://example.com/", ""].find((s) => !re.test(s));
}

/**
 * Invalid variants of a valid `value`, each breaking one rule of `schema`: a missing required
 * member, a wrong type, a bound or length passed, an enum or pattern broken, nested members too.
 */
function mutations(
  resolve: (s: Schema) => Schema,
  schema: Schema,
  value: unknown,
  at: string,
): Mutation[] {
  const s = resolve(schema);
  const out: Mutation[] = [];
  const type = s.type ?? (s.prefixItems ? "array" : undefined);
  if (typeof type === "string") {
    out.push({ rule: `${at} is a ${type}`, value: type === "string" ? 12345 : `not-a-${type}` });
  }
  if (type === "string") {
    if (s.maxLength !== undefined) {
      out.push({ rule: `${at} past maxLength`, value: "x".repeat(s.maxLength + 1) });
    }
    if (s.minLength > 0) out.push({ rule: `${at} under minLength`, value: "" });
    if (s.enum) out.push({ rule: `${at} outside its enum`, value: "NOT-A-MEMBER" });
    const broken = s.pattern ? breaking(s.pattern) : undefined;
    if (broken !== undefined) out.push({ rule: `${at} breaks its pattern`, value: broken });
    if (s.format === "date-time") out.push({ rule: `${at} is a date-time`, value: "soon" });
  }
  if (type === "number" || type === "integer") {
    if (s.minimum !== undefined) out.push({ rule: `${at} under minimum`, value: s.minimum - 1 });
    if (s.maximum !== undefined) out.push({ rule: `${at} over maximum`, value: s.maximum + 1 });
    if (type === "integer") out.push({ rule: `${at} is whole`, value: (s.minimum ?? 0) + 0.5 });
  }
  if (type === "array" && Array.isArray(value)) {
    if (s.minItems > 0) out.push({ rule: `${at} under minItems`, value: [] });
    if (s.maxItems !== undefined && value.length > 0) {
      const value2 = Array.from({ length: s.maxItems + 1 }, (_, i) => value[i % value.length]);
      out.push({ rule: `${at} over maxItems`, value: value2 });
    }
    const itemSchemas: Schema[] = s.prefixItems ?? value.map(() => s.items);
    itemSchemas.forEach((item, i) => {
      if (item === undefined || i >= value.length) return;
      for (const m of mutations(resolve, item, value[i], `${at}.${i}`)) {
        out.push({ rule: m.rule, value: value.map((v, j) => j === i ? m.value : v) });
      }
    });
  }
  if (type === "object" && typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const without = (names: string[]) =>
      Object.fromEntries(Object.entries(record).filter(([k]) => !names.includes(k)));
    for (const name of s.required ?? []) {
      out.push({ rule: `${at}.${name} is required`, value: without([name]) });
    }
    const alternatives = (s.oneOf ?? []).flatMap((b: Schema) => b.required ?? []) as string[];
    if (alternatives.length > 0) {
      out.push({ rule: `${at}: one of ${alternatives.join(", ")}`, value: without(alternatives) });
    }
    for (const [name, member] of Object.entries(record)) {
      const memberSchema = s.properties?.[name];
      if (!memberSchema) continue;
      for (const m of mutations(resolve, memberSchema, member, `${at}.${name}`)) {
        out.push({ rule: m.rule, value: { ...record, [name]: m.value } });
      }
    }
  }
  return out;
}

/** What each operation with a body is sent: its path, its credential and a valid body. */
interface BodyCase {
  path: string;
  token: string;
  valid: Record<string, unknown>;
}

async function world(svc: TestContext) {
  const owner = await signUp(svc);
  const applicant = await signUp(svc);
  const third = await signUp(svc); // applies with the case's body
  const json = async (path: string, token: string, body: unknown) => {
    const res = await svc.request(`/v1${path}`, {
      method: "POST",
      headers: bearer(token),
      json: body,
    });
    assert.ok(res.status < 300, `${path}: ${res.status} ${await res.clone().text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const task = await json("/tasks", owner.token, taskBody());
  const application = await json(`/tasks/${task.id}/applications`, applicant.token, {
    message: "I can do it",
  });
  // A completed task whose creator may review its accepted applicant.
  const done = await json("/tasks", owner.token, taskBody());
  const accepted = await json(`/tasks/${done.id}/applications`, applicant.token, {
    message: "Done it",
  });
  for (
    const [path, body] of [
      [`/applications/${accepted.id}`, { status: "accepted" }],
      [`/tasks/${done.id}`, { status: "completed" }],
    ] as const
  ) {
    const res = await svc.request(`/v1${path}`, {
      method: "PATCH",
      headers: bearer(owner.token),
      json: body,
    });
    assert.equal(res.status, 200, await res.text());
  }
  // Cancelled by its case's valid body.
  const doomed = await json("/tasks", owner.token, taskBody());
  const project = await json("/projects", owner.token, { name: "Home" });
  const key = await createKey(svc, owner.token);
  const hook = await json("/webhooks", owner.token, {
    url: "https://1.1.1.1/hook",
    events: ["*"],
  });
  const alert = await json("/alerts", owner.token, { name: "a", filters: { countryCode: "FR" } });
  // The accepted application's conversation: the other one is withdrawn by its own case.
  const message = await json(`/applications/${accepted.id}/messages`, owner.token, {
    body: "Thanks for coming",
  });
  const talk = accepted;
  return {
    owner,
    applicant,
    third,
    task,
    application,
    project,
    key,
    hook,
    done,
    alert,
    message,
    talk,
    doomed,
  };
}

function bodyCases(w: Awaited<ReturnType<typeof world>>): Record<string, BodyCase> {
  const { owner, applicant } = w;
  const keyId = w.key.id;
  const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
  return {
    "post /users": {
      path: "/users",
      token: "",
      valid: {
        email: `rules-${crypto.randomUUID()}@example.com`,
        password: "long enough",
        firstName: "A",
      },
    },
    "post /auth/token": {
      path: "/auth/token",
      token: "",
      valid: { email: owner.email, password: owner.password },
    },
    "post /keys": {
      path: "/keys",
      token: owner.token,
      valid: { name: "ci", scopes: ["tasks:read"], expiresAt: future, ipWhitelist: ["10.0.0.0/8"] },
    },
    "patch /keys/{id}": {
      path: `/keys/${keyId}`,
      token: owner.token,
      valid: { name: "renamed", ipWhitelist: ["203.0.113.7"], rateLimitPerHour: 100 },
    },
    "post /keys/{id}/regenerate": {
      path: `/keys/${keyId}/regenerate`,
      token: owner.token,
      valid: { expireCurrentIn: "1h" },
    },
    "post /projects": {
      path: "/projects",
      token: owner.token,
      valid: { name: "Garden", description: "Weeds" },
    },
    "put /projects/{id}": {
      path: `/projects/${w.project.id}`,
      token: owner.token,
      valid: { name: "Garden", description: "Weeds" },
    },
    "put /users/{id}": {
      path: `/users/${owner.id}`,
      token: owner.token,
      valid: { firstName: "Ann", lastName: "Lee", profilePic: "https://img.example.com/a.png" },
    },
    "post /webhooks": {
      path: "/webhooks",
      token: owner.token,
      valid: { url: "https://1.1.1.1/other", events: ["task.created"], description: "CI" },
    },
    "patch /webhooks/{id}": {
      path: `/webhooks/${w.hook.id}`,
      token: owner.token,
      valid: { url: "https://1.1.1.1/moved", events: ["*"], enabled: true, description: "x" },
    },
    "post /tasks": {
      path: "/tasks",
      token: owner.token,
      valid: taskBody({ images: ["https://img.example.com/1.jpg"] }),
    },
    "patch /tasks/{id}": {
      path: `/tasks/${w.task.id}`,
      token: owner.token,
      valid: {
        title: "Fix the sink",
        budget: 90,
        currency: "USD",
        location: { coordinates: [13.405, 52.52], type: "radius", name: "Berlin", radiusKm: 10 },
        maxPeople: 3,
        images: ["https://img.example.com/2.jpg"],
      },
    },
    "post /tasks/{id}/applications": {
      path: `/tasks/${w.task.id}/applications`,
      token: w.third.token,
      valid: { message: "Me too", price: 70 },
    },
    "post /tasks/{id}/reviews": {
      path: `/tasks/${w.done.id}/reviews`,
      token: owner.token,
      valid: { revieweeId: applicant.id, rating: 4, comment: "On time, tidy work" },
    },
    "post /tasks/{id}/cancel": {
      path: `/tasks/${w.doomed.id}/cancel`,
      token: owner.token,
      valid: { reason: "no_longer_needed", note: "Plans changed" },
    },
    "patch /applications/{id}": {
      path: `/applications/${w.application.id}`,
      token: applicant.token,
      valid: { status: "withdrawn" },
    },
    "post /alerts": {
      path: "/alerts",
      token: owner.token,
      valid: {
        name: "Pianos",
        filters: { search: "piano", payment: "Paid", latitude: 48.8, longitude: 2.3, radiusKm: 9 },
      },
    },
    "post /applications/{id}/messages": {
      path: `/applications/${w.talk.id}/messages`,
      token: applicant.token,
      valid: { body: "Saturday at ten suits me" },
    },
    "put /applications/{id}/read": {
      path: `/applications/${w.talk.id}/read`,
      token: applicant.token,
      valid: { upTo: w.message.id },
    },
    "patch /alerts/{id}": {
      path: `/alerts/${w.alert.id}`,
      token: owner.token,
      valid: { name: "Paris", filters: { cityName: "Paris", minBudget: 10 }, enabled: true },
    },
  };
}

Deno.test("requests the document's schemas refuse, the service refuses with 400", async (t) => {
  await using svc = await setup({ settings: RELAXED });
  const doc = await loadDocument(svc);
  const valid = validators(doc);
  const resolve = resolver(doc);
  const w = await world(svc);
  const cases = bodyCases(w);

  const withBodies = Object.entries(doc.paths).flatMap(([path, item]) =>
    ["post", "put", "patch"].filter((m) => item[m]?.requestBody).map((m) => `${m} ${path}`)
  );
  await t.step("every operation with a body has a case here", () => {
    assert.deepEqual(withBodies.filter((op) => !cases[op]), []);
  });

  for (const op of withBodies) {
    const bodyCase = cases[op];
    if (!bodyCase) continue;
    const method = op.split(" ")[0].toUpperCase();
    const schema = doc.paths[op.split(" ")[1]][op.split(" ")[0]].requestBody.content[
      "application/json"
    ].schema;
    const send = (body: unknown) =>
      svc.request(`/v1${bodyCase.path}`, {
        method,
        headers: bodyCase.token ? bearer(bodyCase.token) : {},
        json: body,
      });
    await t.step(op, async (t) => {
      for (const m of mutations(resolve, schema, bodyCase.valid, "body")) {
        await t.step(m.rule, async () => {
          assert.equal(valid.body(schema, m.value), false, "the schema refuses it");
          const res = await send(m.value);
          const problem = await res.json();
          assert.equal(res.status, 400, JSON.stringify(problem));
        });
      }
      // Last, since it changes things: the valid body passes both, so each 400 was its rule's.
      await t.step("the valid body is valid by the schema and accepted", async () => {
        assert.equal(valid.body(schema, bodyCase.valid), true);
        const res = await send(bodyCase.valid);
        assert.ok(res.status < 300, `${res.status} ${await res.text()}`);
      });
    });
  }

  const ids: Record<string, string> = {
    "/tasks/{id}": w.task.id,
    "/keys/{id}": w.key.id,
    "/webhooks/{id}": w.hook.id,
  };
  for (const [path, item] of Object.entries(doc.paths)) {
    const params = (item.get?.parameters ?? []).filter((p: Schema) => p.in === "query");
    if (params.length === 0 || item.servers) continue;
    const prefix = Object.keys(ids).find((p) => path.startsWith(p));
    if (path.includes("{") && !prefix) continue;
    const url = prefix ? path.replace(prefix, prefix.replace("{id}", ids[prefix])) : path;
    await t.step(`get ${path} (query)`, async (t) => {
      for (const param of params) {
        const found = mutations(resolve, param.schema, undefined, param.name)
          // Every query value is text: a number where text is due is still text.
          .filter((m) => typeof m.value !== "number" || resolve(param.schema).type !== "string")
          // An empty value is read as absent.
          .filter((m) => m.value !== "");
        for (const m of found) {
          const text = String(m.value);
          await t.step(`${m.rule}: ${param.name}=${text.slice(0, 20)}`, async () => {
            assert.equal(valid.query(param.schema, text), false, "the schema refuses it");
            const query = new URLSearchParams({ [param.name]: text });
            const res = await svc.request(`/v1${url}?${query}`, { headers: bearer(w.owner.token) });
            await res.body?.cancel();
            assert.equal(res.status, 400);
          });
        }
      }
    });
  }
});
