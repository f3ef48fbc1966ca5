import assert from "node:assert/strict";
import { seed } from "../../scripts/seed.ts";
import { apiKey, setup } from "../helpers.ts";

Deno.test("deno task seed makes a demo account, one API key and tasks around real cities", async (t) => {
  let clock: number | null = null;
  await using svc = await setup({ deps: { now: () => clock ?? Date.now() } });
  const setClock = (ms: number | null) => clock = ms;
  const result = await seed(svc.deps, setClock, { tasks: 60 });

  await t.step("the printed API key works and belongs to the demo account", async () => {
    const res = await svc.request("/v1/users/me", { headers: apiKey(result.apiKey) });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).email, "demo@example.com");
  });

  await t.step("the demo account logs in with the printed password", async () => {
    const res = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email: result.email, password: result.password },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  await t.step("the demo account holds exactly one active key, the printed one", async () => {
    const login = await svc.request("/v1/auth/token", {
      method: "POST",
      json: { email: result.email, password: result.password },
    });
    const { token } = await login.json();
    const keys = await svc.request("/api/v1/keys", {
      headers: { Authorization: `Bearer ${token}` },
    });
    const list = await keys.json();
    assert.equal(list.length, 1);
    assert.equal(result.apiKey.endsWith(list[0].last4), true);
  });

  await t.step("every task was posted, by several authors, dated over two weeks", async () => {
    assert.equal(result.tasksCreated, 60);
    const seen: { id: string; createdAt: string }[] = [];
    let url: string | null = "/api/v1/tasks/explore?limit=50";
    while (url) {
      const res: Response = await svc.request(url);
      assert.equal(res.status, 200);
      seen.push(...await res.json());
      const next = res.headers.get("X-Next-Cursor");
      url = next ? `/api/v1/tasks/explore?limit=50&cursor=${next}` : null;
    }
    assert.equal(seen.length, 60);
    const times = seen.map((task) => Date.parse(task.createdAt));
    assert.ok(Math.max(...times) - Math.min(...times) > 10 * 86_400_000, "spread over days");
    const mine = await svc.request("/api/v1/tasks?limit=50", { headers: apiKey(result.apiKey) });
    const own = (await mine.json()).length;
    assert.ok(own > 0 && own < 60, `the demo user posted ${own} of them`);
  });

  await t.step("explore finds tasks near a real city", async () => {
    const res = await svc.request("/api/v1/tasks/explore?countryCode=fr&limit=50");
    assert.ok((await res.json()).length > 0);
  });

  await t.step("seeding again logs in to the same account and adds tasks", async () => {
    const again = await seed(svc.deps, setClock, { tasks: 5 });
    assert.equal(again.userId, result.userId);
    assert.notEqual(again.apiKey, result.apiKey);
    assert.equal(clock, null, "the clock is given back");
  });
});
