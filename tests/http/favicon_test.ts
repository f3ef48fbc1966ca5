/**
 * GET /favicon.ico: browsers ask for it on every page; it answers a real icon instead
 * of a 404, free of the address's budget like /health, and the pages link to it.
 */
import assert from "node:assert/strict";
import { setup } from "../helpers.ts";

Deno.test("/favicon.ico is an icon, free of the rate budget, linked from the pages", async (t) => {
  await using svc = await setup({ settings: { ANON_RATE_LIMIT_PER_HOUR: 2 } });
  const ip = "192.0.2.40";

  await t.step("it answers 200 image/x-icon with a well-formed ICO", async () => {
    const res = await svc.request("/favicon.ico", { ip });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("Content-Type"), "image/x-icon");
    assert.match(res.headers.get("Cache-Control") ?? "", /max-age=\d+/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const view = new DataView(bytes.buffer);
    assert.deepEqual([view.getUint16(0, true), view.getUint16(2, true)], [0, 1], "ICONDIR");
    const count = view.getUint16(4, true);
    assert.ok(count >= 1);
    for (let i = 0; i < count; i++) {
      const entry = 6 + 16 * i;
      const size = view.getUint32(entry + 8, true);
      const offset = view.getUint32(entry + 12, true);
      assert.ok(offset + size <= bytes.length, "each image lies inside the file");
      // A BITMAPINFOHEADER whose width matches the entry's.
      assert.equal(view.getUint32(offset, true), 40);
      assert.equal(view.getInt32(offset + 4, true), bytes[entry] || 256);
    }
  });

  await t.step(
    "it draws nothing from the address's budget, and sends no rate headers",
    async () => {
      for (let i = 0; i < 5; i++) {
        const res = await svc.request("/favicon.ico", { ip });
        assert.equal(res.status, 200);
        assert.equal(
          res.headers.get("RateLimit-Remaining") ?? res.headers.get("X-RateLimit-Remaining"),
          null,
        );
        await res.body?.cancel();
      }
      const page = await svc.request("/docs", { ip });
      assert.equal(page.status, 200, "the budget of 2 is still whole after the icons");
      await page.body?.cancel();
    },
  );

  await t.step("the dashboard and /docs link to it", async () => {
    for (const path of ["/dashboard", "/docs"]) {
      const html = await (await svc.request(path, { ip: "192.0.2.41" })).text();
      assert.match(html, /<link rel="icon" href="\/favicon.ico"/, path);
    }
  });
});
