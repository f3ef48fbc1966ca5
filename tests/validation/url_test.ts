/** URL fields (profilePic, images) take https URLs of any host, with one error message. */
import assert from "node:assert/strict";
import { isHttpsUrl } from "../../domain/validation/url.ts";
import { bearer, setup, signUp } from "../helpers.ts";
import { postTask, taskBody } from "../tasks/task_fixtures.ts";

const GOOD = [
  "https://img.example.com/a.png",
  "https://localhost/a.png",
  "https://127.0.0.1:8443/a.png",
  "https://[2001:db8::1]/a.png",
  "https://cdn/a.png?size=64#top",
  "HTTPS://EXAMPLE.COM/A.PNG",
  "https://xn--caf-dma.example/é.png",
];
const BAD = [
  "http://img.example.com/a.png",
  "ftp://example.com/a.png",
  "data:image/png;base64,AAAA",
  "javascript:alert(1)",
  "//example.com/a.png",
  "https:example.com/a.png",
  "https:/example.com/a.png",
  "https://",
  " https://example.com/a.png",
  "https://example.com/a b.png",
  "https://example.com/a.png\n",
  "https://user:secret@example.com/a.png",
  "not a url",
  "",
  `https://example.com/${"a".repeat(2048)}`,
];

Deno.test("An https URL is accepted from any host; anything else is not", async (t) => {
  await t.step("accepted", () => {
    for (const url of GOOD) assert.ok(isHttpsUrl(url), url);
  });
  await t.step("refused", () => {
    for (const url of BAD) assert.equal(isHttpsUrl(url), false, JSON.stringify(url));
  });
});

Deno.test("profilePic and images that are not https URLs answer 400 VALIDATION_ERROR with one message", async (t) => {
  await using svc = await setup();
  const me = await signUp(svc);
  const task = await postTask(svc, me.token);
  let n = 0;
  const attempts: [string, (url: unknown) => Promise<Response>, string][] = [
    ["POST /v1/users profilePic", (url) =>
      svc.request("/v1/users", {
        method: "POST",
        json: {
          email: `pic${++n}@example.com`,
          password: "correct horse battery",
          firstName: "Pic",
          profilePic: url,
        },
      }), "profilePic"],
    ["PUT /v1/users/:id profilePic", (url) =>
      svc.request(`/v1/users/${me.id}`, {
        method: "PUT",
        headers: bearer(me.token),
        json: { profilePic: url },
      }), "profilePic"],
    ["POST /tasks images", (url) =>
      svc.request("/api/v1/tasks", {
        method: "POST",
        headers: bearer(me.token),
        json: taskBody({ images: [url] }),
      }), "images.0"],
    ["PATCH /tasks/:id images", (url) =>
      svc.request(`/api/v1/tasks/${task.id}`, {
        method: "PATCH",
        headers: bearer(me.token),
        json: { images: [url] },
      }), "images.0"],
  ];
  for (const [what, send, path] of attempts) {
    await t.step(`${what}: each bad URL names ${path} with the https message`, async () => {
      const messages = new Set<string>();
      for (const url of [...BAD, 42]) {
        const res = await send(url);
        const body = await res.json();
        assert.equal(res.status, 400, JSON.stringify(url));
        assert.equal(body.code, "VALIDATION_ERROR");
        assert.deepEqual(body.errors.map((e: { path: string }) => e.path), [path]);
        messages.add(body.errors[0].message);
      }
      assert.deepEqual([...messages], [
        "must be an https URL (https://host/path) of at most 2048 characters, " +
        "without spaces or user credentials",
      ]);
    });
    await t.step(`${what}: an https URL of any host is accepted and kept as written`, async () => {
      for (const url of GOOD) {
        const res = await send(url);
        const body = await res.json();
        assert.ok(res.status === 200 || res.status === 201, `${url}: ${JSON.stringify(body)}`);
        if (path === "profilePic") assert.equal(body.profilePic, url);
        else if (res.status === 200) assert.deepEqual(body.images, [url]);
      }
    });
  }
});
