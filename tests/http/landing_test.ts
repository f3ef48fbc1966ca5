/**
 * Issue 46 #5, "GET / answers a JSON 404" and "the dashboard and /docs do not link to each
 * other": `/` is a page of links a new user can follow, and the two pages point to each other.
 */
import assert from "node:assert/strict";
import { setup } from "../helpers.ts";

/** The `href`s of a page's links. */
function links(html: string): string[] {
  return [...html.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]);
}

Deno.test("GET / answers a JSON 404 (issue 46 #5): a page linking the dashboard and /docs now", async (t) => {
  await using svc = await setup({ settings: { ANON_RATE_LIMIT_PER_HOUR: 2 } });
  const ip = "192.0.2.50";

  await t.step(
    "/ is HTML linking /dashboard, /docs and /openapi.json, each of which answers",
    async () => {
      const res = await svc.request("/", { ip });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("Content-Type") ?? "", /^text\/html/);
      assert.match(res.headers.get("Content-Security-Policy") ?? "", /script-src 'none'/);
      const hrefs = links(await res.text());
      for (const path of ["/dashboard", "/docs", "/openapi.json"]) assert.ok(hrefs.includes(path));
      for (const href of hrefs) {
        const target = await svc.request(href, { ip: "192.0.2.51" });
        assert.equal(target.status, 200, href);
        await target.body?.cancel();
      }
    },
  );

  await t.step("it is free of the address's budget, as /health is", async () => {
    for (let i = 0; i < 4; i++) {
      const res = await svc.request("/", { ip });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  });

  await t.step("the dashboard links /docs, and /docs links the dashboard", async () => {
    const dashboard = await (await svc.request("/dashboard", { ip: "192.0.2.52" })).text();
    assert.ok(links(dashboard).includes("/docs"));
    const docs = await (await svc.request("/docs", { ip: "192.0.2.53" })).text();
    assert.ok(links(docs).includes("/dashboard"));
  });
});
