/** docs/layout.md's folder list stays true: each folder it names holds the files it says. */
import assert from "node:assert/strict";

Deno.test("docs/layout.md gives each folder it lists its number of files", async () => {
  const text = await Deno.readTextFile(new URL("../../docs/layout.md", import.meta.url));
  const listed = [...text.matchAll(/^- `([a-z_/]+)\/` \((\d+)\)/gm)];
  const said: Record<string, number> = {};
  const found: Record<string, number> = {};
  for (const [, folder, count] of listed) {
    said[folder] = Number(count);
    let files = 0;
    for await (const entry of Deno.readDir(new URL(`../../${folder}/`, import.meta.url))) {
      if (entry.isFile) files++;
    }
    found[folder] = files;
  }
  assert.ok(listed.length > 20, "the folder list was not found");
  assert.deepEqual(found, said);
});
