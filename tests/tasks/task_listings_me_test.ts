/** The caller's own listings: /tasks/me/status (pages) and /tasks/me/created (streamed), with filters. */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { postTask } from "./task_fixtures.ts";
import { isNewestFirst, Item, list, send } from "./task_listings_fixtures.ts";

Deno.test("GET /tasks/me/status pages the caller's tasks in one status", async (t) => {
  let clock = Date.now();
  await using svc = await setup({ deps: { now: () => clock++ } });
  const me = await signUp(svc);
  const other = await signUp(svc);
  const published: string[] = [];
  for (let i = 0; i < 5; i++) published.unshift((await postTask(svc, me.token)).id);
  const completed: string[] = [];
  for (let i = 0; i < 3; i++) {
    const task = await postTask(svc, me.token);
    await send(svc, {
      token: me.token,
      method: "PATCH",
      id: task.id,
      json: { status: "completed" },
    });
    completed.unshift(task.id);
  }
  const gone = await postTask(svc, me.token);
  await send(svc, { token: me.token, method: "DELETE", id: gone.id });
  const goneCompleted = await postTask(svc, me.token);
  await send(svc, {
    token: me.token,
    method: "PATCH",
    id: goneCompleted.id,
    json: { status: "completed" },
  });
  await send(svc, { token: me.token, method: "DELETE", id: goneCompleted.id });
  await postTask(svc, other.token);

  const page = (query: string) => list(svc, `/api/v1/tasks/me/status?${query}`, bearer(me.token));

  await t.step("status defaults to published; X-Total-Count counts the status", async () => {
    const { status, res, items } = await page("");
    assert.equal(status, 200);
    assert.equal(res.headers.get("X-Total-Count"), "5");
    assert.deepEqual(items.map((i) => i.id), published);
    assert.ok(items.every((i) => i.status === "published"));
  });

  await t.step("status=completed lists completed tasks only", async () => {
    const { res, items } = await page("status=completed");
    assert.equal(res.headers.get("X-Total-Count"), "3");
    assert.deepEqual(items.map((i) => i.id), completed);
  });

  await t.step("a deleted task is in no listing and no count", async () => {
    for (const status of ["published", "completed"]) {
      const { items } = await page(`status=${status}`);
      assert.ok(!items.some((i) => i.id === gone.id || i.id === goneCompleted.id));
    }
    const all = await list(svc, "/api/v1/tasks?limit=50", bearer(me.token));
    assert.ok(!all.items.some((i) => i.id === gone.id || i.id === goneCompleted.id));
    const created = await list(svc, "/api/v1/tasks/me/created", bearer(me.token));
    assert.equal(created.items.length, 8);
  });

  await t.step("page 2 of limit 2 holds items 3 and 4, with Link next and prev", async () => {
    const { res, items } = await page("page=2&limit=2");
    assert.deepEqual(items.map((i) => i.id), published.slice(2, 4));
    const link = res.headers.get("Link")!;
    assert.match(link, /<http:\/\/[^>]*page=3[^>]*>; rel="next"/);
    assert.match(link, /<http:\/\/[^>]*page=1[^>]*>; rel="prev"/);
  });

  await t.step("the first page has no prev; the last page has no next", async () => {
    assert.doesNotMatch((await page("page=1&limit=2")).res.headers.get("Link")!, /prev/);
    const last = await page("page=3&limit=2");
    assert.deepEqual(last.items.map((i) => i.id), published.slice(4));
    assert.doesNotMatch(last.res.headers.get("Link")!, /next/);
  });

  await t.step("a page past the end is [] with 200", async () => {
    const { status, items, res } = await page("page=9&limit=2");
    assert.equal(status, 200);
    assert.deepEqual(items, []);
    assert.equal(res.headers.get("X-Total-Count"), "5");
    assert.match(res.headers.get("Link")!, /page=3[^>]*>; rel="prev"/);
  });

  await t.step("a user without tasks has a count of 0 and no Link", async () => {
    const res = await list(svc, "/api/v1/tasks/me/status", bearer((await signUp(svc)).token));
    assert.deepEqual(res.items, []);
    assert.equal(res.res.headers.get("X-Total-Count"), "0");
    assert.equal(res.res.headers.get("Link"), null);
  });

  await t.step("counts follow completion at once", async () => {
    await send(svc, {
      token: me.token,
      method: "PATCH",
      id: published[0],
      json: { status: "completed" },
    });
    assert.equal((await page("")).res.headers.get("X-Total-Count"), "4");
    assert.equal((await page("status=completed")).res.headers.get("X-Total-Count"), "4");
  });

  await t.step("GET /tasks/me/status needs tasks:read", async () => {
    const key = await createKey(svc, me.token, { scopes: ["tasks:write"] });
    const res = await list(svc, "/api/v1/tasks/me/status", apiKey(key.value));
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "SCOPE_INSUFFICIENT");
  });
});

Deno.test("GET /tasks/me/created streams every task of the caller", async (t) => {
  await using svc = await setup();
  const me = await signUp(svc);
  const other = await signUp(svc);
  const ids: string[] = [];
  for (let i = 0; i < 250; i++) ids.push((await postTask(svc, me.token, { title: `N${i}` })).id);
  await send(svc, { token: me.token, method: "PATCH", id: ids[10], json: { status: "completed" } });
  await send(svc, { token: me.token, method: "DELETE", id: ids[20] });
  await postTask(svc, other.token);

  await t.step(
    "all 249 live tasks, completed included, newest first, in the list shape",
    async () => {
      const res = await svc.request("/api/v1/tasks/me/created", { headers: bearer(me.token) });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("Content-Type")!, /^application\/json/);
      const items: Item[] = JSON.parse(await res.text());
      assert.equal(items.length, 249);
      assert.deepEqual(
        items.map((i) => i.id).sort(),
        ids.filter((id) => id !== ids[20]).sort(),
      );
      assert.ok(isNewestFirst(items));
      assert.equal(items.find((i) => i.id === ids[10])!.status, "completed");
      assert.deepEqual(
        Object.keys(items[0]).sort(),
        [
          "acceptedCount",
          "budget",
          "createdAt",
          "currency",
          "id",
          "spotsLeft",
          "status",
          "title",
        ],
      );
    },
  );

  await t.step("the body arrives in several chunks (it is streamed)", async () => {
    const res = await svc.request("/api/v1/tasks/me/created", { headers: bearer(me.token) });
    let chunks = 0;
    for await (const _ of res.body!) chunks++;
    assert.ok(chunks >= 3, `${chunks} chunks`);
  });

  await t.step("a reader may stop early without harm", async () => {
    const res = await svc.request("/api/v1/tasks/me/created", { headers: bearer(me.token) });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
  });

  await t.step("a caller without tasks gets []", async () => {
    const res = await svc.request("/api/v1/tasks/me/created", {
      headers: bearer((await signUp(svc)).token),
    });
    assert.equal(await res.text(), "[]");
  });

  await t.step("GET /tasks/me/created needs tasks:read", async () => {
    const key = await createKey(svc, me.token, { scopes: ["tasks:write"] });
    const res = await list(svc, "/api/v1/tasks/me/created", apiKey(key.value));
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "SCOPE_INSUFFICIENT");
  });
});

Deno.test("GET /tasks/me/status and /tasks/me/created filter by search and payment like GET /tasks", async (t) => {
  let clock = Date.now();
  await using svc = await setup({ deps: { now: () => clock++ } });
  const me = await signUp(svc);
  const other = await signUp(svc);
  const specs = [
    { title: "Plomberie urgente", budget: 50, completed: false },
    { title: "Plomberie du jardin", budget: 0, completed: false },
    { title: "Peinture", budget: 30, completed: false },
    { title: "Plombier pour le café", budget: 0, completed: true },
    { title: "Plomb et zinc", budget: 10, completed: true },
    { title: "Déménagement", budget: 0, completed: true },
  ];
  const ids: Record<string, string> = {};
  for (const spec of specs) {
    const task = await postTask(svc, me.token, { title: spec.title, budget: spec.budget });
    if (spec.completed) {
      await send(svc, {
        token: me.token,
        method: "PATCH",
        id: task.id,
        json: { status: "completed" },
      });
    }
    ids[spec.title] = task.id;
  }
  const deleted = await postTask(svc, me.token, { title: "Plomberie supprimée", budget: 5 });
  await send(svc, { token: me.token, method: "DELETE", id: deleted.id });
  await postTask(svc, other.token, { title: "Plomberie d'un autre", budget: 5 });
  const titles = (items: Item[]) => items.map((i) => i.title);
  const status = (query: string) => list(svc, `/api/v1/tasks/me/status?${query}`, bearer(me.token));
  const created = (query: string) =>
    list(svc, `/api/v1/tasks/me/created?${query}`, bearer(me.token));

  await t.step("status: search keeps the tasks whose words it starts, newest first", async () => {
    const { res, items } = await status("search=PLOMB");
    assert.deepEqual(titles(items), ["Plomberie du jardin", "Plomberie urgente"]);
    assert.equal(res.headers.get("X-Total-Count"), "2");
    const done = await status("status=completed&search=plomb%20CAFE");
    assert.deepEqual(titles(done.items), ["Plombier pour le café"]);
    assert.equal(done.res.headers.get("X-Total-Count"), "1");
  });

  await t.step("status: payment keeps Paid (budget > 0) or Pro-bono (budget = 0)", async () => {
    const paid = await status("payment=Paid");
    assert.deepEqual(titles(paid.items), ["Peinture", "Plomberie urgente"]);
    assert.equal(paid.res.headers.get("X-Total-Count"), "2");
    const free = await status("status=completed&payment=Pro-bono");
    assert.deepEqual(titles(free.items), ["Déménagement", "Plombier pour le café"]);
    assert.equal(free.res.headers.get("X-Total-Count"), "2");
  });

  await t.step("status: search and payment combine; pages and Links keep the filters", async () => {
    const first = await status("status=completed&search=plomb&payment=Paid&limit=1");
    assert.deepEqual(titles(first.items), ["Plomb et zinc"]);
    assert.equal(first.res.headers.get("X-Total-Count"), "1");
    const both = await status("search=plomb&limit=1&page=2");
    assert.deepEqual(titles(both.items), ["Plomberie urgente"]);
    const link = both.res.headers.get("Link")!;
    assert.match(link, /search=plomb[^>]*>; rel="prev"/);
    assert.doesNotMatch(link, /rel="next"/);
    const past = await status("search=plomb&page=5");
    assert.deepEqual(past.items, []);
    assert.equal(past.res.headers.get("X-Total-Count"), "2");
  });

  await t.step("created: search and payment filter the streamed array", async () => {
    assert.deepEqual(titles((await created("search=plomb")).items), [
      "Plomb et zinc",
      "Plombier pour le café",
      "Plomberie du jardin",
      "Plomberie urgente",
    ]);
    assert.deepEqual(titles((await created("payment=Pro-bono")).items), [
      "Déménagement",
      "Plombier pour le café",
      "Plomberie du jardin",
    ]);
    assert.deepEqual(titles((await created("search=plomb&payment=Paid")).items), [
      "Plomb et zinc",
      "Plomberie urgente",
    ]);
    assert.deepEqual((await created("search=nothing")).items, []);
  });

  await t.step("each listing agrees with GET /tasks under the same filters", async () => {
    for (const query of ["search=plomb", "payment=Paid", "payment=Pro-bono&search=p", ""]) {
      const all = (await list(svc, `/api/v1/tasks?limit=50&${query}`, bearer(me.token))).items;
      assert.deepEqual((await created(query)).items, all, query);
      for (const s of ["published", "completed"]) {
        const page = await status(`status=${s}&limit=50&${query}`);
        assert.deepEqual(page.items, all.filter((i) => i.status === s), `${s} ${query}`);
        assert.equal(page.res.headers.get("X-Total-Count"), String(page.items.length));
      }
    }
  });

  await t.step("a bad payment or an over-long search is 400 VALIDATION_ERROR on both", async () => {
    for (const path of ["/api/v1/tasks/me/status", "/api/v1/tasks/me/created"]) {
      for (
        const [query, member] of [["payment=paid", "payment"], [
          `search=${"a".repeat(201)}`,
          "search",
        ]]
      ) {
        const { status: code, body } = await list(svc, `${path}?${query}`, bearer(me.token));
        assert.equal(code, 400, `${path}?${query}`);
        assert.equal(body.code, "VALIDATION_ERROR");
        assert.deepEqual(body.errors.map((e: { path: string }) => e.path), [member]);
      }
    }
  });
});
