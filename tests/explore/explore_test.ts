import assert from "node:assert/strict";
import { users } from "../../kv/keyspace.ts";
import { bearer, setup, signUp, type TestContext } from "../helpers.ts";
import { callTask, postTask, type TaskCall } from "../tasks/task_fixtures.ts";

interface Item {
  id: string;
  title: string;
  budget: number;
  currency: string;
  status: string;
  createdAt: string;
  location: { type: string; name: string; coordinates: [number, number]; countryCode?: string };
  distanceKm?: number;
  description?: string;
}

async function explore(svc: TestContext, query: string, init: { headers?: HeadersInit } = {}) {
  const res = await svc.request(`/api/v1/tasks/explore${query}`, init);
  const body = await res.json();
  return { res, status: res.status, body, items: body as Item[] };
}

/** Ids in the contract's order: createdAt, then id, descending (tasks may share a millisecond). */
function newestFirst(tasks: { id: string; createdAt: string }[]): string[] {
  return [...tasks].sort((a, b) =>
    a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : (a.id < b.id ? 1 : -1)
  ).map((t) => t.id);
}

/** A call to /api/v1/tasks/{id} that must succeed. */
async function send(svc: TestContext, call: TaskCall) {
  assert.equal(await callTask(svc, call), 200);
}

const PARIS = { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" };
const VERSAILLES = {
  coordinates: [2.1301, 48.8049],
  type: "city",
  name: "Versailles",
  countryCode: "FR",
};
const LYON_AREA = {
  coordinates: [4.8357, 45.764],
  type: "radius",
  name: "Rhône",
  countryCode: "FR",
  radiusKm: 360,
};
const ETIENNE = {
  coordinates: [4.3872, 45.4397],
  type: "city",
  name: "Saint-Étienne",
  countryCode: "FR",
};
const GERMANY = { coordinates: [10.45, 51.16], type: "country", name: "Deutschland" };
const WORLD = { coordinates: [0, 0], type: "world", name: "Anywhere" };

Deno.test("GET /tasks/explore lists everyone's published tasks, newest first", async (t) => {
  await using svc = await setup();
  const alice = await signUp(svc);
  const bob = await signUp(svc);
  const paris = await postTask(svc, alice.token, {
    title: "Plomberie urgente",
    location: PARIS,
    budget: 120,
  });
  const versailles = await postTask(svc, bob.token, {
    title: "Garden help",
    description: "Café offert",
    location: VERSAILLES,
    budget: 0,
  });
  const lyon = await postTask(svc, bob.token, { title: "Moving boxes", location: LYON_AREA });
  const etienne = await postTask(svc, alice.token, { title: "Tutor", location: ETIENNE });
  const germany = await postTask(svc, alice.token, {
    title: "Translate",
    location: { ...GERMANY, countryCode: "DE" },
  });
  const world = await postTask(svc, bob.token, { title: "Logo design", location: WORLD });
  const completed = await postTask(svc, alice.token, { title: "Done already", location: PARIS });
  await send(svc, {
    token: alice.token,
    method: "PATCH",
    id: completed.id,
    json: { status: "completed" },
  });
  const deleted = await postTask(svc, bob.token, { title: "Gone", location: PARIS });
  await send(svc, { token: bob.token, method: "DELETE", id: deleted.id });
  const all = newestFirst([world, germany, etienne, lyon, versailles, paris]);
  const inOrder = (...tasks: { id: string }[]) =>
    all.filter((id) => tasks.some((t) => t.id === id));

  await t.step("anyone may browse, without a credential", async () => {
    const { status, items, res } = await explore(svc, "");
    assert.equal(status, 200);
    assert.deepEqual(items.map((i) => i.id), all);
    assert.equal(res.headers.get("X-Next-Cursor"), null);
    assert.equal(res.headers.get("Link"), null);
  });

  await t.step("completed and deleted tasks are not listed", async () => {
    const { items } = await explore(svc, "");
    assert.ok(!items.some((i) => i.id === completed.id || i.id === deleted.id));
  });

  await t.step("items are list items plus location, without description", async () => {
    const { items } = await explore(svc, "");
    const item = items.find((i) => i.id === paris.id)!;
    assert.deepEqual(Object.keys(item).sort(), [
      "acceptedCount",
      "budget",
      "createdAt",
      "currency",
      "id",
      "location",
      "spotsLeft",
      "status",
      "title",
    ]);
    assert.deepEqual(item.location, PARIS);
    assert.equal(item.status, "published");
  });

  await t.step("a bad credential is refused even here (401)", async () => {
    const { status, body } = await explore(svc, "", { headers: bearer("not-a-token") });
    assert.equal(status, 401);
    assert.equal(body.code, "TOKEN_INVALID");
  });

  await t.step("a caller with a session sees the same public list", async () => {
    const { items } = await explore(svc, "", { headers: bearer(alice.token) });
    assert.deepEqual(items.map((i) => i.id), all);
  });

  await t.step("/v1/tasks/explore is the same endpoint", async () => {
    const res = await svc.request("/v1/tasks/explore");
    assert.deepEqual(((await res.json()) as Item[]).map((i) => i.id), all);
  });

  await t.step("geo: cities inside the circle, and radius tasks reaching it", async () => {
    const { items } = await explore(svc, "?latitude=48.8566&longitude=2.3522&radiusKm=10");
    assert.deepEqual(items.map((i) => i.id), [paris.id]);
    const wide = await explore(svc, "?latitude=48.8566&longitude=2.3522&radiusKm=20");
    assert.deepEqual(wide.items.map((i) => i.id), inOrder(versailles, paris));
    // Lyon is 392 km from Paris: its 360 km circle reaches a 50 km search circle, not a 20 km one.
    const lyonReach = await explore(svc, "?latitude=48.8566&longitude=2.3522&radiusKm=20");
    assert.ok(!lyonReach.items.some((i) => i.id === lyon.id));
    const reach = await explore(svc, "?latitude=48.8566&longitude=2.3522&radiusKm=50");
    assert.deepEqual(reach.items.map((i) => i.id), inOrder(lyon, versailles, paris));
  });

  await t.step("geo: each item carries distanceKm to one decimal", async () => {
    const { items } = await explore(svc, "?latitude=48.8566&longitude=2.3522&radiusKm=20");
    assert.equal(items.find((i) => i.id === paris.id)!.distanceKm, 0);
    const d = items.find((i) => i.id === versailles.id)!.distanceKm!;
    assert.ok(d > 16 && d < 18, `distance ${d}`);
    assert.equal(Math.round(d * 10) / 10, d);
    const plain = await explore(svc, "");
    assert.ok(plain.items.every((i) => i.distanceKm === undefined));
  });

  await t.step("geo: country- and world-type tasks never take part", async () => {
    const { items } = await explore(svc, "?latitude=51.16&longitude=10.45&radiusKm=500");
    assert.ok(!items.some((i) => i.id === germany.id));
    const zero = await explore(svc, "?latitude=0&longitude=0&radiusKm=1");
    assert.deepEqual(zero.items, []);
  });

  await t.step("cityName: city-type names, case and accents ignored", async () => {
    const { items } = await explore(svc, "?cityName=saint-etienne");
    assert.deepEqual(items.map((i) => i.id), [etienne.id]);
    const rhone = await explore(svc, "?cityName=Rhone");
    assert.deepEqual(rhone.items, []);
  });

  await t.step("regionName: names of any type, case and accents ignored", async () => {
    const { items } = await explore(svc, "?regionName=RHONE");
    assert.deepEqual(items.map((i) => i.id), [lyon.id]);
    const de = await explore(svc, "?regionName=deutschland");
    assert.deepEqual(de.items.map((i) => i.id), [germany.id]);
  });

  await t.step("countryCode: case ignored", async () => {
    const { items } = await explore(svc, "?countryCode=de");
    assert.deepEqual(items.map((i) => i.id), [germany.id]);
    const fr = await explore(svc, "?countryCode=FR");
    assert.deepEqual(fr.items.map((i) => i.id), inOrder(etienne, lyon, versailles, paris));
  });

  await t.step("search: every word starts a word, case and accents ignored", async () => {
    const { items } = await explore(svc, "?search=plomb");
    assert.deepEqual(items.map((i) => i.id), [paris.id]);
    const cafe = await explore(svc, "?search=cafe");
    assert.deepEqual(cafe.items.map((i) => i.id), [versailles.id]);
    const both = await explore(svc, "?search=GARD%20caf");
    assert.deepEqual(both.items.map((i) => i.id), [versailles.id]);
    const inside = await explore(svc, "?search=omberie");
    assert.deepEqual(inside.items, []);
  });

  await t.step("payment: Paid is budget > 0, Pro-bono is 0", async () => {
    const free = await explore(svc, "?payment=Pro-bono");
    assert.deepEqual(free.items.map((i) => i.id), [versailles.id]);
    const paid = await explore(svc, "?payment=Paid");
    assert.ok(!paid.items.some((i) => i.id === versailles.id));
    assert.equal(paid.items.length, all.length - 1);
  });

  await t.step("filters combine with AND", async () => {
    const { items } = await explore(
      svc,
      "?latitude=48.85&longitude=2.35&radiusKm=50&countryCode=fr&payment=Paid&search=mov",
    );
    assert.deepEqual(items.map((i) => i.id), [lyon.id]);
  });

  await t.step("an author whose account is being purged has their tasks hidden", async () => {
    await svc.kv.set(users.purge(bob.id), new Date().toISOString());
    const { items } = await explore(svc, "");
    assert.deepEqual(items.map((i) => i.id), inOrder(germany, etienne, paris));
    await svc.kv.delete(users.purge(bob.id));
  });
});

Deno.test("GET /tasks/explore pages with cursors bound to their filters", async (t) => {
  // A clock that moves on at every reading, so that no two tasks share a millisecond.
  let clock = Date.now();
  await using svc = await setup({ deps: { now: () => ++clock } });
  const alice = await signUp(svc);
  const created = [];
  for (let i = 0; i < 7; i++) {
    created.push(await postTask(svc, alice.token, { title: `Task ${i}`, location: PARIS }));
  }
  const ids = newestFirst(created);

  await t.step("X-Next-Cursor and Link lead through every item once", async () => {
    const seen: string[] = [];
    let url = "/api/v1/tasks/explore?limit=3&countryCode=fr";
    for (let pages = 0; pages < 10; pages++) {
      // From this machine, so Link URLs are absolute (docs/security.md, "Links").
      const res = await svc.request(url, { ip: "127.0.0.1" });
      const items = (await res.json()) as Item[];
      seen.push(...items.map((i) => i.id));
      const cursor = res.headers.get("X-Next-Cursor");
      const link = res.headers.get("Link");
      if (!cursor) {
        assert.equal(link, null);
        break;
      }
      assert.equal(items.length, 3);
      const next = new URL(link!.match(/^<([^>]+)>; rel="next"$/)![1]);
      assert.equal(next.searchParams.get("cursor"), cursor);
      assert.equal(next.searchParams.get("countryCode"), "fr");
      url = next.pathname + next.search;
    }
    assert.deepEqual(seen, ids);
  });

  await t.step("the limit may change between pages", async () => {
    const first = await svc.request("/api/v1/tasks/explore?limit=2");
    await first.body?.cancel();
    const cursor = first.headers.get("X-Next-Cursor")!;
    const { items } = await explore(svc, `?limit=50&cursor=${cursor}`);
    assert.deepEqual(items.map((i) => i.id), ids.slice(2));
  });

  await t.step("a cursor sent with other filters is 400 INVALID_CURSOR", async () => {
    const first = await svc.request("/api/v1/tasks/explore?limit=2&search=task");
    await first.body?.cancel();
    const cursor = first.headers.get("X-Next-Cursor")!;
    const other = await explore(svc, `?limit=2&search=other&cursor=${cursor}`);
    assert.equal(other.status, 400);
    assert.equal(other.body.code, "INVALID_CURSOR");
    const none = await explore(svc, `?limit=2&cursor=${cursor}`);
    assert.equal(none.body.code, "INVALID_CURSOR");
  });

  await t.step("a malformed cursor is 400 INVALID_CURSOR", async () => {
    for (const cursor of ["abc", "eyJwIjoieCJ9", "%00"]) {
      const { status, body } = await explore(svc, `?cursor=${cursor}`);
      assert.equal(status, 400, cursor);
      assert.equal(body.code, "INVALID_CURSOR", cursor);
    }
  });

  await t.step("a task created meanwhile does not shift later pages", async () => {
    const first = await svc.request("/api/v1/tasks/explore?limit=3");
    const page1 = ((await first.json()) as Item[]).map((i) => i.id);
    const cursor = first.headers.get("X-Next-Cursor")!;
    await postTask(svc, alice.token, { title: "Newer", location: PARIS });
    const { items } = await explore(svc, `?limit=50&cursor=${cursor}`);
    assert.deepEqual([...page1, ...items.map((i) => i.id)], ids);
  });
});

Deno.test("GET /tasks/explore refuses bad queries with 400 VALIDATION_ERROR", async (t) => {
  await using svc = await setup();
  const bad: [string, string][] = [
    ["?latitude=48.8&longitude=2.3", "radiusKm"],
    ["?radiusKm=10", "latitude"],
    ["?latitude=48.8&radiusKm=10", "longitude"],
    ["?latitude=48.8&longitude=2.3&radiusKm=0", "radiusKm"],
    ["?latitude=48.8&longitude=2.3&radiusKm=501", "radiusKm"],
    ["?latitude=91&longitude=2.3&radiusKm=10", "latitude"],
    ["?latitude=48.8&longitude=-181&radiusKm=10", "longitude"],
    ["?latitude=abc&longitude=2.3&radiusKm=10", "latitude"],
    ["?latitude=&longitude=2.3&radiusKm=10", "latitude"],
    ["?payment=Free", "payment"],
    ["?payment=paid", "payment"],
    ["?limit=0", "limit"],
    ["?limit=51", "limit"],
    ["?limit=2.5", "limit"],
    ["?countryCode=FRA", "countryCode"],
    ["?cityName=", "cityName"],
    [`?search=${"a".repeat(201)}`, "search"],
  ];
  for (const [query, path] of bad) {
    await t.step(`${query.slice(0, 60)} names ${path}`, async () => {
      const { status, body } = await explore(svc, query);
      assert.equal(status, 400);
      assert.equal(body.code, "VALIDATION_ERROR");
      assert.ok(
        body.errors.some((e: { path: string }) => e.path === path),
        JSON.stringify(body.errors),
      );
    });
  }
  await t.step("radiusKm 500 and 1, and decimals, are accepted", async () => {
    for (const r of ["1", "500", "12.5"]) {
      const { status } = await explore(svc, `?latitude=-33.9&longitude=151.2&radiusKm=${r}`);
      assert.equal(status, 200);
    }
  });
});
