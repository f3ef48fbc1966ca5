/** The layers' import directions: each layer imports only the layers below it. */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), "../.."));

/** Every source file under a top-level folder, as paths from the root. */
async function sources(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(join(ROOT, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (/\.(ts|tsx|js)$/.test(entry.name)) found.push(path);
    }
  };
  await walk(folder);
  return found;
}

/** The top-level folder (or root file) each relative import of `file` reaches. */
async function importedLayers(file: string): Promise<Map<string, string>> {
  const text = await Deno.readTextFile(join(ROOT, file));
  const reached = new Map<string, string>();
  const specifiers = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g);
  for (const [, specifier] of specifiers) {
    const target = relative(ROOT, join(ROOT, dirname(file), specifier));
    reached.set(specifier, target.split("/")[0]);
  }
  return reached;
}

/** Imports of `layer`'s files that reach one of `forbidden`, as "file -> specifier". */
async function crossings(layer: string, forbidden: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of await sources(layer)) {
    for (const [specifier, top] of await importedLayers(file)) {
      if (forbidden.includes(top)) found.push(`${file} -> ${specifier}`);
    }
  }
  return found;
}

const ABOVE_DOMAIN = ["io", "kv", "routes", "scripts", "main.ts", "client", "bench", "tests"];

Deno.test("domain holds rules only: it imports nothing from io/, kv/ or routes/", async () => {
  assert.deepEqual(await crossings("domain", ABOVE_DOMAIN), []);
});

Deno.test("io/ (outside effects) imports domain at most: never kv/ or routes/", async () => {
  assert.deepEqual(await crossings("io", ABOVE_DOMAIN.filter((top) => top !== "io")), []);
});

Deno.test("kv/ never imports routes/", async () => {
  assert.deepEqual(await crossings("kv", ["routes", "scripts", "main.ts", "bench", "tests"]), []);
});

Deno.test("the import reader sees each import: routes/app.ts reaches domain/ and routes/", async () => {
  const reached = await importedLayers("routes/app.ts");
  assert.ok([...reached.values()].includes("domain"), "routes/app.ts imports domain");
  assert.ok([...reached.values()].includes("routes"), "and its own layer");
});
