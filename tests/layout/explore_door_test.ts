/**
 * Explore's front door holds: the service reaches kv/explore through `kv/explore/mod.ts` only
 * (tests and benches of its internals may go past it), and no import circle forms behind it.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), "../.."));
const EXPLORE = "kv/explore/";
const DOOR = "kv/explore/mod.ts";

/** Every source file under `folder` (or the file itself), as paths from the root. */
async function sources(folder: string): Promise<string[]> {
  if (/\.(ts|tsx|js)$/.test(folder)) return [folder];
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(ROOT, folder))) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) found.push(...await sources(path));
    else if (/\.(ts|tsx|js)$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** The files `file`'s relative imports reach, as paths from the root. */
async function imports(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(ROOT, file));
  const specifiers = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g);
  return [...specifiers].map(([, s]) => relative(ROOT, join(ROOT, dirname(file), s)));
}

Deno.test("the service reaches kv/explore through its front door only", async () => {
  const past: string[] = [];
  for (const top of ["main.ts", "routes", "domain", "io", "kv", "scripts"]) {
    for (const file of await sources(top)) {
      if (file.startsWith(EXPLORE)) continue;
      for (const target of await imports(file)) {
        if (target.startsWith(EXPLORE) && target !== DOOR) past.push(`${file} -> ${target}`);
      }
    }
  }
  assert.deepEqual(past, []);
});

Deno.test("kv/explore's files import one another without a circle", async () => {
  const files = await sources(EXPLORE.slice(0, -1));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    graph.set(file, (await imports(file)).filter((t) => t.startsWith(EXPLORE)));
  }
  const circles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      circles.push([...path.slice(path.indexOf(file)), file].join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, "done");
  };
  for (const file of files) visit(file, []);
  assert.ok(files.length > 30, "kv/explore's files were not found");
  assert.deepEqual(circles, []);
});
