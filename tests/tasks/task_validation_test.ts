import assert from "node:assert/strict";
import { bearer, setup, signUp } from "../helpers.ts";
import { postTask, taskBody } from "./task_fixtures.ts";

const PARIS = { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" };

/** Cases of a rule: the body members to override, and the error path expected. */
const invalidCreates: [rule: string, overrides: Record<string, unknown>, path: string][] = [
  ["title is required", { title: undefined }, "title"],
  ["title is trimmed and must not be empty", { title: "   " }, "title"],
  ["title is at most 200 characters", { title: "x".repeat(201) }, "title"],
  ["title is a string", { title: 42 }, "title"],
  ["description is required", { description: undefined }, "description"],
  ["description is trimmed and must not be empty", { description: " \n\t " }, "description"],
  ["description is at most 10,000 characters", { description: "x".repeat(10_001) }, "description"],
  ["requirement is required", { requirement: undefined }, "requirement"],
  ["requirement is at least 1 character", { requirement: "" }, "requirement"],
  ["requirement is at most 5,000 characters", { requirement: "x".repeat(5_001) }, "requirement"],
  ["budget is required", { budget: undefined }, "budget"],
  ["budget is at least 0", { budget: -0.01 }, "budget"],
  ["budget is a number, not a string", { budget: "10" }, "budget"],
  ["budget has at most 2 decimals", { budget: 10.005 }, "budget"],
  ["budget is at most 1,000,000,000,000", { budget: 1_000_000_000_000.01 }, "budget"],
  ["currency is required", { currency: undefined }, "currency"],
  ["currency is upper case", { currency: "eur" }, "currency"],
  ["currency is three letters", { currency: "EURO" }, "currency"],
  ["currency is a real ISO 4217 code", { currency: "ABC" }, "currency"],
  ["location is required", { location: undefined }, "location"],
  ["location is an object", { location: "Paris" }, "location"],
  ["location.coordinates is required", {
    location: { ...PARIS, coordinates: undefined },
  }, "location.coordinates"],
  ["location.coordinates has two numbers", {
    location: { ...PARIS, coordinates: [2.35] },
  }, "location.coordinates"],
  ["location.coordinates has no third number", {
    location: { ...PARIS, coordinates: [2.35, 48.85, 10] },
  }, "location.coordinates"],
  ["longitude is at least -180", {
    location: { ...PARIS, coordinates: [-180.5, 0] },
  }, "location.coordinates.0"],
  ["longitude is at most 180", {
    location: { ...PARIS, coordinates: [181, 0] },
  }, "location.coordinates.0"],
  ["latitude is at least -90", {
    location: { ...PARIS, coordinates: [0, -91] },
  }, "location.coordinates.1"],
  ["latitude is at most 90", {
    location: { ...PARIS, coordinates: [0, 90.01] },
  }, "location.coordinates.1"],
  ["location.type is one of city, country, world, radius", {
    location: { ...PARIS, type: "town" },
  }, "location.type"],
  ["location.name is required", { location: { ...PARIS, name: undefined } }, "location.name"],
  ["location.name is not empty", { location: { ...PARIS, name: "  " } }, "location.name"],
  ["location.name is at most 200 characters", {
    location: { ...PARIS, name: "x".repeat(201) },
  }, "location.name"],
  ["location.countryCode is upper case", {
    location: { ...PARIS, countryCode: "fr" },
  }, "location.countryCode"],
  ["location.countryCode is alpha-2", {
    location: { ...PARIS, countryCode: "FRA" },
  }, "location.countryCode"],
  ["location.countryCode is an assigned ISO 3166-1 code", {
    location: { ...PARIS, countryCode: "QQ" },
  }, "location.countryCode"],
  ["location.radiusKm is required for type radius", {
    location: { ...PARIS, type: "radius" },
  }, "location.radiusKm"],
  ["location.radiusKm is at least 1", {
    location: { ...PARIS, type: "radius", radiusKm: 0.5 },
  }, "location.radiusKm"],
  ["location.radiusKm is at most 500", {
    location: { ...PARIS, type: "radius", radiusKm: 501 },
  }, "location.radiusKm"],
  ["location.radiusKm is refused for type city", {
    location: { ...PARIS, radiusKm: 10 },
  }, "location.radiusKm"],
  ["location.radiusKm is refused for type country", {
    location: { ...PARIS, type: "country", radiusKm: 10 },
  }, "location.radiusKm"],
  ["location.radiusKm is refused for type world", {
    location: { ...PARIS, type: "world", radiusKm: 10 },
  }, "location.radiusKm"],
  ["dueDate is a real calendar date", { dueDate: "2030-02-30" }, "dueDate"],
  ["dueDate is YYYY-MM-DD or an ISO 8601 timestamp", { dueDate: "tomorrow" }, "dueDate"],
  ["dueDate as a timestamp carries its offset", { dueDate: "2030-05-01T10:00:00" }, "dueDate"],
  ["maxPeople is at least 1", { maxPeople: 0 }, "maxPeople"],
  ["maxPeople is at most 1,000", { maxPeople: 1_001 }, "maxPeople"],
  ["maxPeople is an integer", { maxPeople: 1.5 }, "maxPeople"],
  ["images holds at most 10 URLs", {
    images: Array.from({ length: 11 }, (_, i) => `https://img.example.com/${i}.jpg`),
  }, "images"],
  ["images are https URLs", { images: ["http://img.example.com/a.jpg"] }, "images.0"],
  ["images are URLs", { images: ["https://ok.example.com/a.jpg", "not a url"] }, "images.1"],
  ["images is an array", { images: "https://img.example.com/a.jpg" }, "images"],
];

Deno.test("POST /tasks refuses every invalid body with 400 VALIDATION_ERROR naming the path", async (t) => {
  await using svc = await setup();
  const { token } = await signUp(svc);

  for (const [rule, overrides, path] of invalidCreates) {
    await t.step(`rule: ${rule} (${path})`, async () => {
      const res = await svc.request("/api/v1/tasks", {
        method: "POST",
        headers: bearer(token),
        json: taskBody(overrides),
      });
      const body = await res.json();
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.code, "VALIDATION_ERROR");
      assert.ok(
        body.errors.some((e: { path: string }) => e.path === path),
        `expected an error at ${path}, got ${JSON.stringify(body.errors)}`,
      );
    });
  }

  await t.step("every problem of a body is reported, one entry each", async () => {
    const res = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: bearer(token),
      json: taskBody({ title: "", budget: -1, location: { ...PARIS, type: "radius" } }),
    });
    assert.equal(res.status, 400);
    const paths = (await res.json()).errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["budget", "location.radiusKm", "title"]);
  });

  await t.step("an Idempotency-Key over 255 characters is a validation error", async () => {
    const res = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: { ...bearer(token), "Idempotency-Key": "k".repeat(256) },
      json: taskBody(),
    });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.equal(body.errors[0].path, "idempotency-key");
  });
});

Deno.test("POST /tasks accepts the edges of every rule and normalizes what it keeps", async (t) => {
  await using svc = await setup();
  const { token } = await signUp(svc);

  await t.step("title and description are trimmed", async () => {
    const task = await postTask(svc, token, { title: "  Paint  ", description: "\n walls \t" });
    assert.equal(task.title, "Paint");
    assert.equal(task.description, "walls");
  });

  await t.step("limits are inclusive: 200-char title, 10,000-char description", async () => {
    const task = await postTask(svc, token, {
      title: "t".repeat(200),
      description: "d".repeat(10_000),
      requirement: "r".repeat(5_000),
    });
    assert.equal(task.title.length, 200);
  });

  await t.step("budget 0 and two decimals are accepted", async () => {
    assert.equal((await postTask(svc, token, { budget: 0 })).budget, 0);
    assert.equal((await postTask(svc, token, { budget: 19.99 })).budget, 19.99);
    assert.equal((await postTask(svc, token, { budget: 0.29 })).budget, 0.29);
  });

  await t.step("radiusKm 1 and 500 are accepted for type radius", async () => {
    for (const radiusKm of [1, 500]) {
      const task = await postTask(svc, token, {
        location: { coordinates: [0, 0], type: "radius", name: "Here", radiusKm },
      });
      assert.equal(task.location.radiusKm, radiusKm);
    }
  });

  await t.step("coordinates at the ends of their ranges are accepted", async () => {
    const task = await postTask(svc, token, {
      location: { coordinates: [-180, 90], type: "world", name: "Anywhere" },
    });
    assert.deepEqual(task.location.coordinates, [-180, 90]);
  });

  await t.step("maxPeople defaults to 1 and accepts 1,000", async () => {
    assert.equal((await postTask(svc, token, { maxPeople: undefined })).maxPeople, 1);
    assert.equal((await postTask(svc, token, { maxPeople: 1000 })).maxPeople, 1000);
  });

  await t.step("dueDate keeps a date and normalizes a timestamp to UTC with ms", async () => {
    assert.equal((await postTask(svc, token, { dueDate: "2030-02-28" })).dueDate, "2030-02-28");
    const task = await postTask(svc, token, { dueDate: "2030-05-01T10:00:00+02:00" });
    assert.equal(task.dueDate, "2030-05-01T08:00:00.000Z");
    assert.equal((await postTask(svc, token, { dueDate: undefined })).dueDate, null);
  });

  await t.step("ten https images are accepted", async () => {
    const images = Array.from({ length: 10 }, (_, i) => `https://img.example.com/${i}.jpg`);
    const task = await postTask(svc, token, { images });
    const res = await svc.request(`/api/v1/tasks/${task.id}`);
    assert.deepEqual((await res.json()).images, images);
  });

  await t.step("unknown members are refused, each named: 400 UNKNOWN_PARAMETER", async () => {
    const res = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: bearer(token),
      json: taskBody({ color: "red", status: "completed", id: "mine" }),
    });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.code, "UNKNOWN_PARAMETER");
    assert.deepEqual(body.errors.map((e: { path: string }) => e.path), ["color", "status", "id"]);
  });
});

Deno.test("PATCH /tasks/:id and the listings validate like create", async (t) => {
  await using svc = await setup();
  const { token } = await signUp(svc);
  const task = await postTask(svc, token);

  const patches: [string, Record<string, unknown>, string][] = [
    ["title must not be empty", { title: " " }, "title"],
    ["budget is at least 0", { budget: -5 }, "budget"],
    ["currency is ISO 4217", { currency: "usd" }, "currency"],
    ["radiusKm is refused for a city", {
      location: { ...PARIS, radiusKm: 3 },
    }, "location.radiusKm"],
    ["status can only be set to completed", { status: "published" }, "status"],
    ["maxPeople is an integer", { maxPeople: 2.5 }, "maxPeople"],
  ];
  for (const [rule, patch, path] of patches) {
    await t.step(`PATCH rule: ${rule}`, async () => {
      const res = await svc.request(`/api/v1/tasks/${task.id}`, {
        method: "PATCH",
        headers: bearer(token),
        json: patch,
      });
      const body = await res.json();
      assert.equal(res.status, 400);
      assert.equal(body.code, "VALIDATION_ERROR");
      assert.ok(body.errors.some((e: { path: string }) => e.path === path));
    });
  }

  const queries: [string, string, string][] = [
    ["limit is at least 1", "/api/v1/tasks?limit=0", "limit"],
    ["limit is at most 50", "/api/v1/tasks?limit=51", "limit"],
    ["limit is an integer", "/api/v1/tasks?limit=2.5", "limit"],
    ["limit is a number", "/api/v1/tasks?limit=ten", "limit"],
    ["payment is Paid or Pro-bono", "/api/v1/tasks?payment=free", "payment"],
    ["status is published or completed", "/api/v1/tasks/me/status?status=deleted", "status"],
    ["page is at least 1", "/api/v1/tasks/me/status?page=0", "page"],
    ["page is an integer", "/api/v1/tasks/me/status?page=x", "page"],
    ["status listing limit is at most 50", "/api/v1/tasks/me/status?limit=60", "limit"],
  ];
  for (const [rule, url, path] of queries) {
    await t.step(`query rule: ${rule}`, async () => {
      const res = await svc.request(url, { headers: bearer(token) });
      const body = await res.json();
      assert.equal(res.status, 400);
      assert.equal(body.code, "VALIDATION_ERROR");
      assert.ok(body.errors.some((e: { path: string }) => e.path === path));
    });
  }
});
