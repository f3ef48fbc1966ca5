import assert from "node:assert/strict";
import { SCOPES } from "../../domain/auth.ts";
import { bearer, setup, signUp } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

type FieldProblem = { path: string; message: string };

/** zod's own wording, which must never reach a client. */
const ZOD_DEFAULTS = /Invalid input|Invalid option|Too small|Too big|expected |received |>=|<=/;

Deno.test("validation errors name each field with a plain message", async (t) => {
  await using svc = await setup();
  const { token } = await signUp(svc);

  const errorsOf = async (res: Response): Promise<FieldProblem[]> => {
    const body = await res.json();
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(body.code, "VALIDATION_ERROR");
    return body.errors;
  };
  const signUpWith = (json: unknown) => svc.request("/v1/users", { method: "POST", json });
  const postTask = (overrides: Record<string, unknown>) =>
    svc.request("/api/v1/tasks", {
      method: "POST",
      headers: bearer(token),
      json: taskBody(overrides),
    });

  await t.step(
    "the body keeps the problem shape, errors[] holding only path and message",
    async () => {
      const res = await signUpWith({ email: "a@example.com", password: "short", firstName: "A" });
      const body = await res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        "code",
        "detail",
        "errors",
        "requestId",
        "status",
        "title",
        "type",
      ]);
      assert.deepEqual(body.errors, [{
        path: "password",
        message: "must be at least 8 characters",
      }]);
    },
  );

  const cases: [what: string, send: () => Promise<Response>, expected: FieldProblem][] = [
    [
      "a missing member is required",
      () => signUpWith({ email: "b@example.com", password: "long enough" }),
      { path: "firstName", message: "is required" },
    ],
    [
      "a string over its maximum",
      () => postTask({ title: "t".repeat(201) }),
      { path: "title", message: "must be at most 200 characters" },
    ],
    [
      "an empty string",
      () => postTask({ title: "  " }),
      { path: "title", message: "must not be empty" },
    ],
    [
      "a string where a number belongs",
      () => postTask({ budget: "80" }),
      { path: "budget", message: "must be a number" },
    ],
    [
      "a fraction where an integer belongs",
      () => postTask({ maxPeople: 1.5 }),
      { path: "maxPeople", message: "must be an integer" },
    ],
    [
      "a number under its minimum",
      () => postTask({ maxPeople: 0 }),
      { path: "maxPeople", message: "must be at least 1" },
    ],
    [
      "a nested value outside its enum",
      () => postTask({ location: { coordinates: [2, 48], type: "moon", name: "Paris" } }),
      { path: "location.type", message: "must be one of: city, country, world, radius" },
    ],
    [
      "an array item outside its enum",
      () =>
        svc.request("/api/v1/keys", {
          method: "POST",
          headers: bearer(token),
          json: { name: "k", scopes: ["tasks:read", "tasks:delete"], expiresInDays: 30 },
        }),
      {
        path: "scopes.1",
        // Every scope, in the order they are declared.
        message: `must be one of: ${SCOPES.join(", ")}`,
      },
    ],
    [
      "an address that is not an email",
      () => signUpWith({ email: "not-an-email", password: "long enough", firstName: "A" }),
      { path: "email", message: "must be an email address" },
    ],
    [
      "a query parameter outside its enum",
      () => svc.request("/api/v1/tasks?payment=Free", { headers: bearer(token) }),
      { path: "payment", message: "must be one of: Paid, Pro-bono" },
    ],
    [
      "a schema's own message is kept",
      () => postTask({ currency: "usd" }),
      { path: "currency", message: "must be an ISO 4217 currency code in upper case" },
    ],
  ];
  for (const [what, send, expected] of cases) {
    await t.step(`${what}: ${expected.path} "${expected.message}"`, async () => {
      const errors = await errorsOf(await send());
      assert.ok(
        errors.some((e) => e.path === expected.path && e.message === expected.message),
        JSON.stringify(errors),
      );
    });
  }

  await t.step("a URL failing two checks is one problem", async () => {
    const errors = await errorsOf(await postTask({ images: [`http://${"a".repeat(2048)}`] }));
    assert.deepEqual(errors, [{
      path: "images.0",
      message: "must be an https URL (https://host/path) of at most 2048 characters, " +
        "without spaces or user credentials",
    }]);
  });

  await t.step("no message anywhere speaks zod's default wording", async () => {
    const bodies = [
      {},
      { title: 5, description: null, budget: "x", currency: 1, location: "here", maxPeople: -1 },
      { location: { coordinates: [1], type: "radius", name: "" }, images: "x", dueDate: "soon" },
    ];
    for (const json of bodies) {
      const res = await svc.request("/api/v1/tasks", {
        method: "POST",
        headers: bearer(token),
        json,
      });
      for (const { path, message } of await errorsOf(res)) {
        assert.doesNotMatch(message, ZOD_DEFAULTS, `${path}: ${message}`);
      }
    }
  });
});

Deno.test("a domain schema words its errors the same before and after createApp runs", async () => {
  // zod's configuration is process-wide: a fresh process sees the order of a real start-up.
  const url = (path: string) => new URL(path, import.meta.url).href;
  const script = `
    const { parseSettings } = await import(${JSON.stringify(url("../../domain/settings.ts"))});
    const refusal = () => {
      try { parseSettings({ LOG_LEVEL: "loud", PORT: "-3" }); } catch (error) { return error.message; }
    };
    const before = refusal();
    const { createApp } = await import(${JSON.stringify(url("../../routes/app.ts"))});
    const { createDeps } = await import(${JSON.stringify(url("../../routes/router/deps.ts"))});
    const { testSettings } = await import(${JSON.stringify(url("../settings_fixtures.ts"))});
    const kv = await Deno.openKv(":memory:");
    createApp(await createDeps(kv, testSettings()));
    console.log(JSON.stringify({ before, after: refusal() }));
    kv.close();
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--unstable-kv", "--unstable-cron", script],
    cwd: new URL("../..", import.meta.url),
    stderr: "inherit",
  }).output();
  assert.equal(output.code, 0);
  const { before, after } = JSON.parse(new TextDecoder().decode(output.stdout).trim());
  assert.equal(before, after);
  assert.match(before, /LOG_LEVEL: must be one of: debug, info, warn, error, silent/);
  assert.doesNotMatch(before, ZOD_DEFAULTS);
});
