import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { postTask } from "./task_fixtures.ts";
import { isNewestFirst, list, send } from "./task_listings_fixtures.ts";

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
