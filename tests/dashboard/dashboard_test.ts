import assert from "node:assert/strict";
import { SCOPES } from "../../domain/auth.ts";
import { setup } from "../helpers.ts";

Deno.test("GET /dashboard serves the account dashboard", async (t) => {
  await using svc = await setup();

  await t.step("the page is HTML with sign-in, sign-up and every scope to choose", async () => {
    const res = await svc.request("/dashboard");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("Content-Type")!, /^text\/html/);
    const html = await res.text();
    assert.match(html, /^<!DOCTYPE html>/);
    for (const id of ["sign-in-form", "sign-up-form", "keys-table", "create-dialog"]) {
      assert.ok(html.includes(`id="${id}"`), id);
    }
    for (const scope of SCOPES) assert.ok(html.includes(`value="${scope}"`), scope);
  });

  await t.step("the page allows only its own script, styles and API calls", async () => {
    const res = await svc.request("/dashboard");
    await res.body?.cancel();
    const csp = res.headers.get("Content-Security-Policy")!;
    for (const rule of ["script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) {
      assert.ok(csp.includes(rule), rule);
    }
    assert.ok(!csp.includes("unsafe-inline"));
    assert.equal(res.headers.get("X-Content-Type-Options"), "nosniff");
  });

  await t.step("the script and stylesheet are served under versioned, cacheable URLs", async () => {
    const html = await (await svc.request("/dashboard")).text();
    for (
      const [pattern, type] of [[/\/dashboard\/app\.js\?v=\w+/, "text/javascript"], [
        /\/dashboard\/app\.css\?v=\w+/,
        "text/css",
      ]] as const
    ) {
      const url = html.match(pattern)![0];
      const res = await svc.request(url);
      assert.equal(res.status, 200);
      assert.ok(res.headers.get("Content-Type")!.startsWith(type));
      assert.match(res.headers.get("Cache-Control")!, /immutable/);
      assert.ok((await res.text()).length > 0);
      const again = await svc.request(url, {
        headers: { "If-None-Match": res.headers.get("ETag")! },
      });
      assert.equal(again.status, 304);
      await again.body?.cancel();
    }
  });

  await t.step("a client that takes gzip gets the same bytes gzipped", async () => {
    const plain = await (await svc.request("/dashboard")).text();
    for (
      const path of ["/dashboard", "/dashboard/app.js", "/dashboard/app.css", "/dashboard/chart.js"]
    ) {
      const res = await svc.request(path, { headers: { "Accept-Encoding": "gzip, br" } });
      assert.equal(res.headers.get("Content-Encoding"), "gzip", path);
      assert.equal(res.headers.get("Vary"), "Accept-Encoding");
      const text = await new Response(res.body!.pipeThrough(new DecompressionStream("gzip")))
        .text();
      if (path === "/dashboard") assert.equal(text, plain);
      else assert.ok(text.length > 1000, path);
    }
    const refused = await svc.request("/dashboard", {
      headers: { "Accept-Encoding": "gzip;q=0, identity" },
    });
    assert.equal(refused.headers.get("Content-Encoding"), null);
    assert.equal(await refused.text(), plain);
  });

  await t.step("the page answers 304 to a client holding the current copy", async () => {
    const first = await svc.request("/dashboard");
    await first.body?.cancel();
    const etag = first.headers.get("ETag")!;
    const again = await svc.request("/dashboard", { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
    await again.body?.cancel();
  });

  await t.step("an asset asked for without its version is revalidated, not cached", async () => {
    const res = await svc.request("/dashboard/app.js");
    await res.body?.cancel();
    assert.equal(res.headers.get("Cache-Control"), "no-cache");
  });

  await t.step("POST /dashboard answers 405 with Allow", async () => {
    const res = await svc.request("/dashboard", { method: "POST" });
    assert.equal(res.status, 405);
    assert.match(res.headers.get("Allow")!, /GET/);
    await res.body?.cancel();
  });
});

Deno.test("a list header of 60 KB of spaces is answered at once (no backtracking split)", async () => {
  await using svc = await setup();
  const spaces = " ".repeat(60_000);
  // Each header alone used to be split or matched by a pattern that backtracks over the spaces.
  for (
    const headers of [
      { "If-None-Match": `W/"a"${spaces}x` },
      { "Accept-Encoding": `gzip;${spaces}x` },
      { "Accept-Encoding": `gzip${spaces}x`, "If-None-Match": `a,${spaces},b` },
    ] as Record<string, string>[]
  ) {
    const started = performance.now();
    const res = await svc.request("/dashboard", { headers });
    await res.body?.cancel();
    const took = performance.now() - started;
    assert.equal(res.status, 200);
    // A backtracking pattern takes seconds over 60 KB (quadratic); a linear one takes a few ms. The
    // bound sits far from both so that a loaded machine cannot fail it.
    assert.ok(took < 1_000, `${Object.keys(headers)} took ${took.toFixed(0)} ms`);
  }
  const gzip = await svc.request("/dashboard", { headers: { "Accept-Encoding": "x, gzip ;q=1" } });
  await gzip.body?.cancel();
  assert.equal(gzip.headers.get("Content-Encoding"), "gzip");
});
