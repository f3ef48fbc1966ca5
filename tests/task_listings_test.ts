import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "./helpers.ts";
import { callTask, postTask, type TaskCall } from "./task_fixtures.ts";

interface Item {
  id: string;
  title: string;
  budget: number;
  status: string;
  createdAt: string;
}

/** A listing read from this machine, so its Link URLs are absolute (docs/security.md, "Links"). */
async function list(svc: TestContext, url: string, headers: HeadersInit) {
  const res = await svc.request(url, { headers, ip: "127.0.0.1" });
  const body = await res.json();
  return { res, status: res.status, body, items: body as Item[] };
}

/** Newest first: createdAt descending, then id descending. */
function isNewestFirst(items: Item[]): boolean {
  return items.every((item, i) =>
    i === 0 ||
    items[i - 1].createdAt > item.createdAt ||
    (items[i - 1].createdAt === item.createdAt && items[i - 1].id > item.id)
  );
}

/** A call to /api/v1/tasks/{id} that must succeed. */
async function send(svc: TestContext, call: TaskCall) {
  assert.equal(await callTask(svc, call), 200);
}

Deno.test("GET /tasks lists the caller's tasks of every status, newest first", async (t) => {
  await using svc = await setup();
  const me = await signUp(svc);
  const other = await signUp(svc);
  const published = await postTask(svc, me.token, { title: "Published" });
  const completed = await postTask(svc, me.token, { title: "Completed" });
  await send(svc, {
    token: me.token,
    method: "PATCH",
    id: completed.id,
    json: { status: "completed" },
  });
  const deleted = await postTask(svc, me.token, { title: "Deleted" });
  await send(svc, { token: me.token, method: "DELETE", id: deleted.id });
  await postTask(svc, other.token, { title: "Someone else's" });

  await t.step(
    "published and completed tasks are listed; deleted and others' are not",
    async () => {
      const { status, items } = await list(svc, "/api/v1/tasks", bearer(me.token));
      assert.equal(status, 200);
      assert.deepEqual(items.map((i) => i.id).sort(), [published.id, completed.id].sort());
      assert.equal(items.find((i) => i.id === completed.id)!.status, "completed");
      assert.ok(isNewestFirst(items));
    },
  );

  await t.step("a single page carries neither X-Next-Cursor nor Link", async () => {
    const { res } = await list(svc, "/api/v1/tasks", bearer(me.token));
    assert.equal(res.headers.get("X-Next-Cursor"), null);
    assert.equal(res.headers.get("Link"), null);
  });

  await t.step("GET /tasks needs tasks:read", async () => {
    const key = await createKey(svc, me.token, { scopes: ["tasks:write"] });
    const denied = await list(svc, "/api/v1/tasks", apiKey(key.value));
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "SCOPE_INSUFFICIENT");
    assert.equal((await list(svc, "/api/v1/tasks", {})).body.code, "TOKEN_MISSING");
    const reader = await createKey(svc, me.token, { scopes: ["tasks:read"] });
    assert.equal((await list(svc, "/v1/tasks", apiKey(reader.value))).status, 200);
  });
});

Deno.test("cursor paging returns every task exactly once while tasks come and go", async (t) => {
  // A clock that ticks one millisecond per read, so creation times are distinct and increasing.
  let clock = Date.now();
  await using svc = await setup({ deps: { now: () => clock++ } });
  const me = await signUp(svc);
  const original: string[] = [];
  for (let i = 0; i < 45; i++) {
    original.push((await postTask(svc, me.token, { title: `T${i}` })).id);
  }

  await t.step(
    "45 tasks, limit 20: pages of 20, 20, 5 with tasks inserted between pages",
    async () => {
      const seen: string[] = [];
      let url: string | null = "/api/v1/tasks?limit=20";
      const sizes: number[] = [];
      while (url) {
        const { res, items } = await list(svc, url, bearer(me.token));
        assert.equal(res.status, 200);
        assert.ok(isNewestFirst(items));
        sizes.push(items.length);
        seen.push(...items.map((i) => i.id));
        const cursor = res.headers.get("X-Next-Cursor");
        const link = res.headers.get("Link");
        if (cursor) {
          const next = /^<([^>]+)>; rel="next"$/.exec(link ?? "");
          assert.ok(next, `Link announces the next page: ${link}`);
          const nextUrl = new URL(next[1]);
          assert.equal(nextUrl.searchParams.get("cursor"), cursor);
          assert.equal(nextUrl.searchParams.get("limit"), "20");
          url = next[1];
          await postTask(svc, me.token, { title: "Inserted meanwhile" });
        } else {
          assert.equal(link, null, "the last page has no Link");
          url = null;
        }
      }
      assert.deepEqual(sizes, [20, 20, 5]);
      assert.equal(new Set(seen).size, seen.length, "no task is returned twice");
      assert.deepEqual([...seen].sort(), [...original].sort(), "every task is returned once");
    },
  );

  await t.step(
    "a task deleted before its page is reached is skipped; the rest appear once",
    async () => {
      const first = await list(svc, "/api/v1/tasks?limit=20", bearer(me.token));
      const cursor = first.res.headers.get("X-Next-Cursor")!;
      const all = await list(svc, "/api/v1/tasks?limit=50", bearer(me.token));
      const victim = all.items[30].id;
      await send(svc, { token: me.token, method: "DELETE", id: victim });
      const seen = first.items.map((i) => i.id);
      let next: string | null = cursor;
      while (next) {
        const page = await list(
          svc,
          `/api/v1/tasks?limit=20&cursor=${encodeURIComponent(next)}`,
          bearer(me.token),
        );
        seen.push(...page.items.map((i) => i.id));
        next = page.res.headers.get("X-Next-Cursor");
      }
      const expected = all.items.map((i) => i.id).filter((id) => id !== victim);
      assert.deepEqual(seen, expected);
    },
  );

  await t.step("limit defaults to 20", async () => {
    assert.equal((await list(svc, "/api/v1/tasks", bearer(me.token))).items.length, 20);
  });

  await t.step("a cursor keeps working with another limit", async () => {
    const first = await list(svc, "/api/v1/tasks?limit=5", bearer(me.token));
    const cursor = first.res.headers.get("X-Next-Cursor")!;
    const second = await list(svc, `/api/v1/tasks?limit=7&cursor=${cursor}`, bearer(me.token));
    assert.equal(second.status, 200);
    assert.equal(second.items.length, 7);
    assert.ok(second.items[0].createdAt < first.items[4].createdAt);
  });
});

Deno.test("a bad cursor answers 400 INVALID_CURSOR", async (t) => {
  await using svc = await setup();
  const me = await signUp(svc);
  const other = await signUp(svc);
  for (let i = 0; i < 3; i++) {
    await postTask(svc, me.token, { title: `Paid plumbing ${i}`, budget: 10 });
    await postTask(svc, other.token, { title: `Paid plumbing ${i}`, budget: 10 });
  }
  const first = await list(svc, "/api/v1/tasks?limit=1&search=plumb", bearer(me.token));
  const cursor = first.res.headers.get("X-Next-Cursor")!;
  assert.ok(cursor);

  const cases: [string, string, string][] = [
    ["a malformed cursor", `/api/v1/tasks?cursor=not-a-cursor`, me.token],
    ["a cursor of bad base64", `/api/v1/tasks?cursor=%25%25%25`, me.token],
    ["a cursor of JSON that is no cursor", `/api/v1/tasks?cursor=${btoa('{"a":1}')}`, me.token],
    ["a cursor sent with another search", `/api/v1/tasks?search=other&cursor=${cursor}`, me.token],
    ["a cursor sent without its search", `/api/v1/tasks?cursor=${cursor}`, me.token],
    [
      "a cursor sent with another payment",
      `/api/v1/tasks?search=plumb&payment=Paid&cursor=${cursor}`,
      me.token,
    ],
    ["another user's cursor", `/api/v1/tasks?search=plumb&cursor=${cursor}`, other.token],
  ];
  for (const [rule, url, token] of cases) {
    await t.step(`rule: ${rule}`, async () => {
      const { status, body } = await list(svc, url, bearer(token));
      assert.equal(status, 400);
      assert.equal(body.code, "INVALID_CURSOR");
    });
  }

  await t.step("the same search, written differently, keeps its cursor", async () => {
    const res = await list(
      svc,
      `/api/v1/tasks?search=%20PLÜMB%20&cursor=${cursor}`,
      bearer(me.token),
    );
    assert.equal(res.status, 200);
  });
});

Deno.test("search and payment filter GET /tasks", async (t) => {
  await using svc = await setup();
  const me = await signUp(svc);
  const plumbing = await postTask(svc, me.token, {
    title: "Plomberie urgente",
    description: "Une fuite d'eau sous l'évier",
    budget: 120,
  });
  const coffee = await postTask(svc, me.token, {
    title: "Café pour l'équipe",
    description: "Apporter du café chaque matin",
    budget: 0,
  });
  const garden = await postTask(svc, me.token, {
    title: "Garden work",
    description: "Mow the lawn and trim the hedge",
    budget: 35.5,
  });

  async function ids(query: string): Promise<string[]> {
    const { status, items } = await list(svc, `/api/v1/tasks?${query}`, bearer(me.token));
    assert.equal(status, 200);
    return items.map((i) => i.id).sort();
  }

  await t.step("a word prefix finds the task: plomb finds Plomberie", async () => {
    assert.deepEqual(await ids("search=plomb"), [plumbing.id]);
  });

  await t.step("accents and case are ignored: cafe and CAFÉ find Café", async () => {
    assert.deepEqual(await ids("search=cafe"), [coffee.id]);
    assert.deepEqual(await ids(`search=${encodeURIComponent("CAFÉ")}`), [coffee.id]);
  });

  await t.step("the description counts: lawn finds Garden work", async () => {
    assert.deepEqual(await ids("search=lawn"), [garden.id]);
  });

  await t.step("every query word must match: mow garden yes, mow plomb no", async () => {
    assert.deepEqual(await ids("search=mow%20garden"), [garden.id]);
    assert.deepEqual(await ids("search=mow%20plomb"), []);
  });

  await t.step("a word must start a word, not sit inside one", async () => {
    assert.deepEqual(await ids("search=omberie"), []);
  });

  await t.step("a search of no words matches everything", async () => {
    assert.equal((await ids("search=%20%21%20")).length, 3);
  });

  await t.step("payment=Paid is budget > 0, Pro-bono is budget = 0", async () => {
    assert.deepEqual(await ids("payment=Paid"), [plumbing.id, garden.id].sort());
    assert.deepEqual(await ids("payment=Pro-bono"), [coffee.id]);
  });

  await t.step("search and payment combine", async () => {
    assert.deepEqual(await ids("payment=Paid&search=the"), [garden.id]);
    assert.deepEqual(await ids("payment=Pro-bono&search=plomb"), []);
  });

  await t.step("an edit moves a task between payment classes and search words", async () => {
    await send(svc, {
      token: me.token,
      method: "PATCH",
      id: garden.id,
      json: { budget: 0, title: "Jardinage" },
    });
    assert.deepEqual(await ids("payment=Pro-bono"), [coffee.id, garden.id].sort());
    assert.deepEqual(await ids("search=jardin"), [garden.id]);
    assert.deepEqual(await ids("search=garden"), []);
  });

  await t.step("filtered pages follow cursors too", async () => {
    for (let i = 0; i < 7; i++) await postTask(svc, me.token, { title: `Plomb ${i}`, budget: 5 });
    await postTask(svc, me.token, { title: "Plomb free", budget: 0 });
    const seen: string[] = [];
    let url: string | null = "/api/v1/tasks?limit=3&search=plomb&payment=Paid";
    while (url) {
      const page = await list(svc, url, bearer(me.token));
      assert.ok(page.items.length <= 3);
      seen.push(...page.items.map((i) => i.id));
      const link = page.res.headers.get("Link");
      url = link ? /^<([^>]+)>/.exec(link)![1] : null;
    }
    assert.equal(seen.length, 8, "7 new paid tasks plus Plomberie urgente");
    assert.equal(new Set(seen).size, 8);
  });
});

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
