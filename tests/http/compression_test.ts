/**
 * Answers of 2 KiB or more, and streamed listings, are gzipped for clients that accept it,
 * streams still stream, small answers are not touched, and every answer that could be compressed says `Vary: Accept-Encoding`.
 */
import assert from "node:assert/strict";
import { MIN_COMPRESSED_LENGTH } from "../../routes/http/compress.ts";
import { bearer, serveApp, setup, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";

const GZIP = { "Accept-Encoding": "gzip, deflate, br" };

async function gunzip(res: Response): Promise<string> {
  return await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
}

Deno.test("large answers go gzipped to clients that take gzip", async (t) => {
  await using svc = await setup();

  await t.step("/openapi.json goes out gzipped, the same document", async () => {
    const plain = await svc.request("/openapi.json");
    const plainText = await plain.text();
    assert.ok(plainText.length > 100_000);
    const res = await svc.request("/openapi.json", { headers: GZIP });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("Content-Encoding"), "gzip");
    assert.equal(res.headers.get("Content-Length"), null);
    assert.match(res.headers.get("Vary") ?? "", /Accept-Encoding/);
    assert.match(res.headers.get("Content-Type")!, /^application\/json; charset=utf-8/);
    const bytes = new Uint8Array(await res.clone().arrayBuffer());
    assert.ok(bytes.byteLength < plainText.length / 4, `${bytes.byteLength} bytes`);
    assert.deepEqual(JSON.parse(await gunzip(res)), JSON.parse(plainText));
  });

  await t.step(
    "without Accept-Encoding, or refusing gzip, it goes out plain but says Vary",
    async () => {
      const refusals: Record<string, string>[] = [{}, { "Accept-Encoding": "gzip;q=0, identity" }];
      for (const headers of refusals) {
        const res = await svc.request("/openapi.json", { headers });
        assert.equal(res.headers.get("Content-Encoding"), null);
        assert.match(res.headers.get("Vary") ?? "", /Accept-Encoding/);
        JSON.parse(await res.text());
      }
    },
  );

  await t.step("small answers are not compressed and do not vary by encoding", async () => {
    const me = await signUp(svc);
    const task = await postTask(svc, me.token);
    for (const path of ["/health", `/api/v1/tasks/${task.id}`, "/api/v1/nowhere"]) {
      const res = await svc.request(path, { headers: { ...GZIP, ...bearer(me.token) } });
      const text = await res.text();
      assert.ok(text.length < MIN_COMPRESSED_LENGTH, path);
      assert.equal(res.headers.get("Content-Encoding"), null, path);
      // A task read varies by credential (docs/caching.md), never by encoding when this small.
      assert.doesNotMatch(res.headers.get("Vary") ?? "", /accept-encoding/i, path);
    }
  });

  await t.step("HEAD announces what its GET sends", async () => {
    const get = await svc.request("/openapi.json", { headers: GZIP });
    const bytes = (await get.arrayBuffer()).byteLength;
    const res = await svc.request("/openapi.json", { method: "HEAD", headers: GZIP });
    assert.equal(res.headers.get("Content-Encoding"), "gzip");
    assert.equal(res.headers.get("Content-Length"), String(bytes));
    assert.equal((await res.arrayBuffer()).byteLength, 0);
  });
});

Deno.test("a large answer sent plain goes out whole over real HTTP, with its length", async () => {
  // Deciding not to gzip it must not turn the body held whole into a stream (sent chunked).
  await using served = await serveApp();
  const res = await fetch(`${served.base}/openapi.json`, {
    headers: { "Accept-Encoding": "identity" },
  });
  const bytes = await res.bytes();
  assert.ok(bytes.length >= MIN_COMPRESSED_LENGTH);
  assert.equal(res.headers.get("Content-Encoding"), null);
  assert.equal(res.headers.get("Content-Length"), String(bytes.length));
  assert.equal(res.headers.get("Transfer-Encoding"), null);
});

Deno.test("a streamed listing is gzipped as it streams: the first items arrive before the end", async () => {
  await using svc = await setup();
  const me = await signUp(svc);
  for (let i = 0; i < 250; i++) await postTask(svc, me.token, { title: `Task ${i}` });

  const whole = async () => {
    const res = await svc.request("/api/v1/tasks/me/created", { headers: bearer(me.token) });
    return await res.text();
  };
  const plain = await whole();
  const res = await svc.request("/api/v1/tasks/me/created", {
    headers: { ...GZIP, ...bearer(me.token) },
  });
  assert.equal(res.headers.get("Content-Encoding"), "gzip");
  assert.match(res.headers.get("Vary") ?? "", /Accept-Encoding/);
  const [compressed, forCheck] = res.body!.tee();
  const text = compressed.pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("},{")) {
    const { value, done } = await text.read();
    assert.ok(!done, "the stream ended before its first item");
    first += value;
  }
  assert.ok(first.startsWith('[{"id":'), first.slice(0, 40));
  // Flushed as written: the first items come as a part of the body, not the whole of it. (Counting
  // the store reads made by then raced the stream's read-ahead on an idle machine.)
  assert.ok(
    first.length < plain.length,
    `the first items came with ${first.length} of ${plain.length} characters`,
  );
  await text.cancel();
  assert.equal(await gunzip(new Response(forCheck)), plain);
});

Deno.test("a streamed gzip listing delivers its first items while its store read still waits", async () => {
  // The store's list of the caller's tasks stops after its first 100 entries until the test has
  // read the first items: only an answer compressed and sent as it streams can deliver them.
  const inner = await Deno.openKv(":memory:");
  let gated = false;
  let open = () => {};
  const gate = new Promise<void>((resolve) => open = resolve);
  const kv = new Proxy(inner, {
    get(target, name) {
      if (name === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          const entries = target.list(selector, options);
          if (!gated) return entries;
          return (async function* () {
            let read = 0;
            for await (const entry of entries) {
              yield entry;
              if (++read === 100) await gate;
            }
          })();
        };
      }
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  await using svc = await setup({ kv });
  const me = await signUp(svc);
  for (let i = 0; i < 150; i++) await postTask(svc, me.token, { title: `Task ${i}` });

  gated = true;
  const res = await svc.request("/api/v1/tasks/me/created", {
    headers: { ...GZIP, ...bearer(me.token) },
  });
  assert.equal(res.headers.get("Content-Encoding"), "gzip");
  const text = res.body!.pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  const firstItems = (async () => {
    while (!first.includes("},{")) {
      const { value, done } = await text.read();
      if (done) throw new Error("the stream ended before its first items");
      first += value;
    }
  })();
  // A bound against hanging, never a check: an answer held back until its end cannot pass.
  let bound: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    bound = setTimeout(() => reject(new Error("no item arrived while the read waited")), 60_000);
  });
  try {
    await Promise.race([firstItems, hung]);
  } finally {
    clearTimeout(bound);
    open();
  }
  assert.ok(first.startsWith('[{"id":'), first.slice(0, 40));
  let rest = "";
  for (let next = await text.read(); !next.done; next = await text.read()) rest += next.value;
  assert.equal(JSON.parse(first + rest).length, 150);
  inner.close();
});
