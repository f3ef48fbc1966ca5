/** Every tag an operation carries is declared, with a description, in the document's `tags`. */
import assert from "node:assert/strict";
import { setup } from "../helpers.ts";

Deno.test("every operation's tags are declared in the document's tags", async () => {
  await using svc = await setup();
  const doc = await (await svc.request("/openapi.json")).json();
  const declared = new Set(doc.tags.map((tag: { name: string }) => tag.name));
  const used = new Set<string>();
  for (const item of Object.values(doc.paths) as Record<string, { tags?: string[] }>[]) {
    for (const op of Object.values(item)) for (const tag of op.tags ?? []) used.add(tag);
  }
  assert.deepEqual([...used].filter((tag) => !declared.has(tag)), []);
});
