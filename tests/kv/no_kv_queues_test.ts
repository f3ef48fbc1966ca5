/**
 * Today's Deno Deploy and KV Connect have no KV queues. The tests run without them (deno task
 * test preloads tests/without_kv_queues.ts), and the service calls them nowhere but in the one
 * drain of what an older version left (kv/jobs/legacy_queue.ts).
 */
import assert from "node:assert/strict";
import { root } from "../processes/main_process.ts";

Deno.test("the tests run without the KV queue API, as the service runs on Deno Deploy", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const api = kv as unknown as Record<string, unknown>;
    const atomic = kv.atomic() as unknown as Record<string, unknown>;
    assert.equal(
      [api.enqueue, api.listenQueue, atomic.enqueue].every((f) => f === undefined),
      true,
      "run the tests with `deno task test` (it preloads tests/without_kv_queues.ts)",
    );
  } finally {
    kv.close();
  }
});

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.(ts|tsx)$/.test(entry.name)) yield path;
  }
}

Deno.test("no KV queue call is left in the service but the one-time legacy drain", async () => {
  const found: string[] = [];
  const files = [`${root}main.ts`];
  for (const dir of ["kv", "routes", "domain", "scripts"]) {
    for await (const path of sources(`${root}${dir}`)) files.push(path);
  }
  for (const path of files) {
    if (path.endsWith("kv/jobs/legacy_queue.ts")) continue;
    const text = await Deno.readTextFile(path);
    for (const [i, line] of text.split("\n").entries()) {
      // A stream controller's enqueue is not KV's.
      if (/(?<!controller)\.enqueue\(|listenQueue|keysIfUndelivered/.test(line)) {
        found.push(`${path.slice(root.length)}:${i + 1}: ${line.trim()}`);
      }
    }
  }
  assert.deepEqual(found, []);
});
