import assert from "node:assert/strict";
import { markdown } from "../../routes/reference/docs_markdown.ts";
import { setup } from "../helpers.ts";

Deno.test("GET /docs is an interactive reference rendered from the OpenAPI document", async (t) => {
  await using svc = await setup();
  const res = await svc.request("/docs");
  const html = await res.text();
  const doc = await (await svc.request("/openapi.json")).json();

  await t.step("it answers 200 text/html with a request id", () => {
    assert.equal(res.status, 200);
    assert.match(res.headers.get("Content-Type")!, /^text\/html/);
    assert.ok(res.headers.get("X-Request-Id"));
  });

  await t.step("it lists every operation of the document, with a try-it form", () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, object>)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === "servers") continue;
        const id = (op as { operationId: string }).operationId;
        assert.match(html, new RegExp(`<section class="op" id="${id}">`), id);
        assert.ok(
          html.includes(`data-method="${method}" data-path="${path}"`),
          `${method} ${path} has a form`,
        );
      }
    }
  });

  await t.step("it documents every named schema", () => {
    for (const name of Object.keys(doc.components.schemas)) {
      assert.ok(html.includes(`id="schema-${name}"`), name);
    }
  });

  await t.step("it names each endpoint's scope", () => {
    assert.match(html, /API key with scope <code>projects:write<\/code>/);
    assert.match(html, /Session token only/);
  });

  await t.step("it loads nothing from elsewhere (works offline)", () => {
    assert.doesNotMatch(html, /<script[^>]+src=/);
    // The one link is the icon, on this origin (the policy's img-src 'self').
    const links = [...html.matchAll(/<link[^>]+href=[^>]*>/g)].map((m) => m[0]);
    assert.deepEqual(links, ['<link rel="icon" href="/favicon.ico">']);
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//);
  });

  await t.step("its script is valid JavaScript", () => {
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    assert.equal(scripts.length, 1);
    assert.doesNotThrow(() => new Function(scripts[0]));
  });

  await t.step("the error codes table is rendered from the description", () => {
    assert.match(html, /<td>429<\/td><td>RATE_LIMITED<\/td>/);
  });
});

Deno.test("the docs page's markdown escapes HTML", () => {
  assert.equal(markdown("a <b> `c`"), "<p>a &lt;b&gt; <code>c</code></p>");
});
