import assert from "node:assert/strict";
import { parseSettings } from "../../domain/settings.ts";
import { apiKey, createKey, setup, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";

/** The URLs of a Link header, by relation. */
function links(res: Response): Record<string, string> {
  const header = res.headers.get("Link") ?? "";
  return Object.fromEntries(
    [...header.matchAll(/<([^>]+)>; rel="([^"]+)"/g)].map(([, url, rel]) => [rel, url]),
  );
}

/** A service with three tasks and a key to list them; `PUBLIC_URL` as given. */
async function withTasks(publicUrl?: string) {
  const svc = await setup({ settings: publicUrl ? { PUBLIC_URL: publicUrl } : {} });
  const user = await signUp(svc);
  const { value: key } = await createKey(svc, user.token);
  for (let i = 0; i < 3; i++) await postTask(svc, user.token);
  return { svc, headers: apiKey(key) };
}

// app.request() takes the request URL as given, as Deno.serve builds it from the Host header.
const FORGED = "http://evil.example";

Deno.test("Link URLs are absolute under PUBLIC_URL, whatever Host the request names", async (t) => {
  const { svc, headers } = await withTasks("https://api.example.com/market/");
  await using _ = svc;

  await t.step("cursor paging: rel=next is under PUBLIC_URL", async () => {
    const res = await svc.request(`${FORGED}/api/v1/tasks?limit=1&payment=Paid`, { headers });
    await res.body?.cancel();
    const next = new URL(links(res).next);
    assert.equal(next.origin, "https://api.example.com");
    assert.equal(next.pathname, "/market/api/v1/tasks");
    assert.equal(next.searchParams.get("payment"), "Paid");
    assert.equal(next.searchParams.get("cursor"), res.headers.get("X-Next-Cursor"));
  });

  await t.step("page paging: rel=next and rel=prev are under PUBLIC_URL", async () => {
    const res = await svc.request(`${FORGED}/v1/tasks/me/status?page=2&limit=1`, { headers });
    await res.body?.cancel();
    const { next, prev } = links(res);
    assert.equal(next, "https://api.example.com/market/v1/tasks/me/status?page=3&limit=1");
    assert.equal(prev, "https://api.example.com/market/v1/tasks/me/status?page=1&limit=1");
  });
});

Deno.test("without PUBLIC_URL, Link URLs follow the request's own URL on a local request", async () => {
  const { svc, headers } = await withTasks();
  await using _ = svc;
  const res = await svc.request("http://localhost:8000/api/v1/tasks?limit=1", {
    headers,
    ip: "127.0.0.1",
  });
  await res.body?.cancel();
  assert.match(links(res).next, /^http:\/\/localhost:8000\/api\/v1\/tasks\?limit=1&cursor=/);
});

Deno.test("without PUBLIC_URL, a Link never follows a forged Host: path-absolute unless the request is local", async (t) => {
  const { svc, headers } = await withTasks();
  await using _ = svc;
  await t.step("cursor paging, keyed and public explore", async () => {
    for (const path of ["/api/v1/tasks?limit=1", "/v1/tasks/explore?limit=1"]) {
      const res = await svc.request(`${FORGED}${path}`, { headers });
      await res.body?.cancel();
      const next = links(res).next;
      assert.ok(next.startsWith(`${path.split("?")[0]}?`), next);
      assert.ok(next.includes(`cursor=${res.headers.get("X-Next-Cursor")}`));
    }
  });
  await t.step("page paging", async () => {
    const res = await svc.request(`${FORGED}/v1/tasks/me/status?page=2&limit=1`, { headers });
    await res.body?.cancel();
    assert.deepEqual(links(res), {
      next: "/v1/tasks/me/status?page=3&limit=1",
      prev: "/v1/tasks/me/status?page=1&limit=1",
    });
  });
  await t.step("a loopback host from a loopback client stays absolute (local use)", async () => {
    for (
      const [origin, ip] of [["http://127.0.0.1:8000", "127.0.0.1"], ["http://[::1]:8000", "::1"]]
    ) {
      const res = await svc.request(`${origin}/api/v1/tasks?limit=1`, { headers, ip });
      await res.body?.cancel();
      assert.ok(links(res).next.startsWith(`${origin}/api/v1/tasks?limit=1&cursor=`), origin);
    }
  });
  await t.step("a loopback host sent from elsewhere is forged too", async () => {
    const res = await svc.request("http://localhost:8000/api/v1/tasks?limit=1", { headers });
    await res.body?.cancel();
    assert.ok(links(res).next.startsWith("/api/v1/tasks?limit=1&cursor="), links(res).next);
  });
});

Deno.test("PUBLIC_URL is an http(s) base URL", async (t) => {
  await t.step("a trailing slash is dropped; unset is undefined", () => {
    assert.equal(
      parseSettings({ PUBLIC_URL: "https://a.example/" }).PUBLIC_URL,
      "https://a.example",
    );
    assert.equal(parseSettings({}).PUBLIC_URL, undefined);
  });
  for (
    const bad of [
      "api.example.com",
      "ftp://a.example",
      "https://a.example/?x=1",
      "https://a.example/#top",
      "https://user:pw@a.example",
    ]
  ) {
    await t.step(`"${bad}" stops start-up naming PUBLIC_URL`, () => {
      assert.throws(
        () => parseSettings({ PUBLIC_URL: bad }),
        /PUBLIC_URL: must be an http\(s\) URL/,
      );
    });
  }
});
