import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "../helpers.ts";
import { taskBody } from "./task_fixtures.ts";

/** Credentials as headers: a session token, or an API key value (svc_...). */
function auth(credential: string): HeadersInit {
  return credential.startsWith("svc_") ? apiKey(credential) : bearer(credential);
}

function create(
  svc: TestContext,
  { token, key, body = taskBody() }: { token: string; key: string; body?: unknown },
) {
  return svc.request("/api/v1/tasks", {
    method: "POST",
    headers: { ...auth(token), "Idempotency-Key": key },
    json: body,
  });
}

async function taskCount(svc: TestContext, token: string): Promise<number> {
  const res = await svc.request("/api/v1/tasks/me/status", { headers: auth(token) });
  await res.body?.cancel();
  return Number(res.headers.get("X-Total-Count"));
}

Deno.test("Idempotency-Key on POST /tasks", async (t) => {
  let clock = Date.now();
  await using svc = await setup({ deps: { now: () => clock } });
  // API keys rather than sessions: the clock jumps a day, past a session's lifetime.
  const user = { token: (await createKey(svc, (await signUp(svc)).token)).value };
  const other = await signUp(svc);

  await t.step(
    "a retry with the same key and body returns the first response and creates nothing",
    async () => {
      const first = await create(svc, { token: user.token, key: "retry-1" });
      const firstBody = await first.json();
      const second = await create(svc, { token: user.token, key: "retry-1" });
      assert.equal(first.status, 201);
      assert.equal(second.status, 201);
      assert.deepEqual(await second.json(), firstBody);
      assert.equal(second.headers.get("Location"), first.headers.get("Location"));
      assert.equal(second.headers.get("Idempotent-Replayed"), "true");
      assert.equal(first.headers.get("Idempotent-Replayed"), null);
      assert.equal(await taskCount(svc, user.token), 1);
    },
  );

  await t.step("bodies that differ only in member order are the same body", async () => {
    const body = taskBody();
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const a = await (await create(svc, { token: user.token, key: "same-meaning", body })).json();
    const b = await (await create(svc, { token: user.token, key: "same-meaning", body: reordered }))
      .json();
    assert.equal(b.id, a.id);
  });

  await t.step("the same key with another body answers 422 IDEMPOTENCY_KEY_REUSED", async () => {
    const first = await create(svc, { token: user.token, key: "reused" });
    await first.body?.cancel();
    const res = await create(svc, {
      token: user.token,
      key: "reused",
      body: taskBody({ title: "Something else" }),
    });
    assert.equal(res.status, 422);
    assert.equal((await res.json()).code, "IDEMPOTENCY_KEY_REUSED");
  });

  await t.step("keys are per user: another user's same key creates their own task", async () => {
    const mine = await (await create(svc, { token: user.token, key: "shared-key" })).json();
    const theirs = await (await create(svc, { token: other.token, key: "shared-key" })).json();
    assert.notEqual(theirs.id, mine.id);
    assert.equal(await taskCount(svc, other.token), 1);
  });

  await t.step("the first response is replayed even after the task was edited", async () => {
    const first = await (await create(svc, { token: user.token, key: "then-edited" })).json();
    const edit = await svc.request(`/api/v1/tasks/${first.id}`, {
      method: "PATCH",
      headers: auth(user.token),
      json: { title: "Edited" },
    });
    await edit.body?.cancel();
    const replay = await (await create(svc, { token: user.token, key: "then-edited" })).json();
    assert.deepEqual(replay, first);
  });

  await t.step("a failed validation does not use up the key", async () => {
    const bad = await create(svc, {
      token: user.token,
      key: "after-400",
      body: taskBody({ budget: -1 }),
    });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const good = await create(svc, { token: user.token, key: "after-400" });
    assert.equal(good.status, 201);
    await good.body?.cancel();
  });

  await t.step("after 24 hours the key is free again", async () => {
    const first = await (await create(svc, { token: user.token, key: "day-old" })).json();
    clock += 24 * 60 * 60 * 1000 + 1;
    const later = await create(svc, {
      token: user.token,
      key: "day-old",
      body: taskBody({ title: "Another" }),
    });
    assert.equal(later.status, 201);
    assert.notEqual((await later.json()).id, first.id);
  });

  await t.step("concurrent creates with one key make exactly one task", async () => {
    const before = await taskCount(svc, user.token);
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => create(svc, { token: user.token, key: "at-once" })),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    assert.deepEqual(responses.map((r) => r.status), responses.map(() => 201));
    assert.equal(new Set(bodies.map((b) => b.id)).size, 1, "every answer names one task");
    assert.equal(await taskCount(svc, user.token), before + 1);
  });

  await t.step(
    "concurrent creates with one key but different bodies: one 201, the rest 422",
    async () => {
      const responses = await Promise.all(
        Array.from(
          { length: 6 },
          (_, i) =>
            create(svc, {
              token: user.token,
              key: "race-bodies",
              body: taskBody({ title: `Body ${i}` }),
            }),
        ),
      );
      await Promise.all(responses.map((r) => r.body?.cancel()));
      assert.deepEqual(
        responses.map((r) => r.status).sort(),
        [201, 422, 422, 422, 422, 422],
      );
    },
  );
});
