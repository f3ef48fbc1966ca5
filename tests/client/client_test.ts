/**
 * The official client against the real app: credentials, paging through every page of a cursor
 * listing, problem+json answers thrown as ApiError with their own members, explore in both
 * formats.
 */
import assert from "node:assert/strict";
import { ApiError, createClient, UnexpectedResponse } from "../../client/mod.ts";
import { createKey, setup, signUp, type TestContext } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

/** A client whose requests go to `svc` in-process, from one client address. */
function clientOf(svc: TestContext, credential: { apiKey?: string; token?: string } = {}) {
  return createClient({
    baseUrl: "http://marketplace.test",
    ...credential,
    fetch: (request) =>
      Promise.resolve(
        svc.app.request(request, undefined, {
          remoteAddr: { hostname: "203.0.113.10", port: 40000, transport: "tcp" },
        }),
      ),
  });
}

Deno.test("the client sends its credential and types every answer", async (t) => {
  await using svc = await setup({ settings: { RATE_LIMIT_PER_HOUR: 100_000 } });
  const user = await signUp(svc, { firstName: "Ada" });
  const key = await createKey(svc, user.token, { scopes: ["tasks:read", "tasks:write"] });

  await t.step("an API key goes as X-API-Key, a session token as Bearer", async () => {
    const withToken = await clientOf(svc, { token: user.token }).get("/users/me");
    assert.equal(withToken.email, user.email);
    const created = await clientOf(svc, { apiKey: key.value }).post("/tasks", {
      body: taskBody() as never,
    });
    assert.equal(created.status, "published");
  });

  await t.step("paginate yields every item of every page, in order, once", async () => {
    const client = clientOf(svc, { apiKey: key.value });
    for (let i = 0; i < 4; i++) await client.post("/tasks", { body: taskBody() as never });
    const pages: number[] = [];
    const seen: string[] = [];
    const counting = createClient({
      baseUrl: "http://marketplace.test",
      apiKey: key.value,
      fetch: async (request) => {
        const res = await svc.app.request(request, undefined, {
          remoteAddr: { hostname: "203.0.113.10", port: 40000, transport: "tcp" },
        });
        pages.push(Number(new URL(request.url).searchParams.get("limit")));
        return res;
      },
    });
    for await (const task of counting.paginate("/tasks", { params: { query: { limit: 2 } } })) {
      seen.push(task.id);
    }
    const all = await client.get("/tasks", { params: { query: { limit: 50 } } });
    assert.deepEqual(seen, all.map((task) => task.id));
    assert.equal(seen.length, 5);
    assert.deepEqual(pages, [2, 2, 2], "three pages of at most two, the filters kept");
  });

  await t.step(
    "explore answers JSON items or a GeoJSON FeatureCollection, each typed",
    async () => {
      const client = clientOf(svc);
      const near = { latitude: 48.86, longitude: 2.35, radiusKm: 10, sort: "distance" } as const;
      const items = await client.explore(near);
      assert.equal(typeof items[0].distanceKm, "number");
      const map = await client.exploreGeoJson(near);
      assert.equal(map.type, "FeatureCollection");
      assert.deepEqual(map.features.map((f) => f.id), items.map((item) => item.id));
      assert.deepEqual(map.features[0].geometry.coordinates, [2.3522, 48.8566]);
    },
  );
});

Deno.test("a problem+json answer is thrown as ApiError with its code and its own members", async (t) => {
  let now = Date.parse("2030-03-01T12:00:00Z");
  await using svc = await setup({ deps: { now: () => now } });
  const user = await signUp(svc);
  const reader = await createKey(svc, user.token, { scopes: ["profile:read"], expiresInDays: 1 });
  const thrown = async (call: Promise<unknown>) => {
    const error = await call.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ApiError, `an ApiError, not ${error}`);
    return error;
  };

  await t.step("VALIDATION_ERROR carries each error by its path", async () => {
    const client = clientOf(svc, { token: user.token });
    const error = await thrown(client.post("/tasks", { body: taskBody({ budget: -1 }) as never }));
    assert.equal(error.status, 400);
    assert.equal(error.code, "VALIDATION_ERROR");
    assert.deepEqual(error.errors.map((e) => e.path), ["budget"]);
    assert.equal(error.requestId, error.response.headers.get("X-Request-Id"));
  });

  await t.step("SCOPE_INSUFFICIENT names the scope", async () => {
    const error = await thrown(clientOf(svc, { apiKey: reader.value }).get("/tasks"));
    assert.equal(error.code, "SCOPE_INSUFFICIENT");
    assert.equal(error.problem.scope, "tasks:read");
  });

  await t.step("RATE_LIMITED carries Retry-After in seconds", async () => {
    const client = clientOf(svc, { token: user.token });
    const limited = await createKey(svc, user.token, { scopes: ["profile:read"] });
    await client.patch("/keys/{id}", {
      params: { path: { id: limited.id } },
      body: { rateLimitPerHour: 1 },
    });
    const keyed = clientOf(svc, { apiKey: limited.value });
    await keyed.get("/users/me");
    const error = await thrown(keyed.get("/users/me"));
    assert.equal(error.code, "RATE_LIMITED");
    assert.equal(error.status, 429);
    assert.ok(error.retryAfter !== undefined && error.retryAfter > 0, String(error.retryAfter));
  });

  await t.step("an expired key says when it expired", async () => {
    now += 2 * 86_400_000;
    const error = await thrown(clientOf(svc, { apiKey: reader.value }).get("/users/me"));
    assert.equal(error.code, "API_KEY_INVALID");
    assert.equal(error.problem.expiredAt, reader.metadata.expiresAt);
  });

  await t.step("an answer that is not problem+json is an UnexpectedResponse", async () => {
    const client = createClient({
      baseUrl: "http://marketplace.test",
      fetch: () => Promise.resolve(new Response("<h1>Bad gateway</h1>", { status: 502 })),
    });
    const error = await client.get("/users/me").then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof UnexpectedResponse);
    assert.equal(error.response.status, 502);
  });
});
