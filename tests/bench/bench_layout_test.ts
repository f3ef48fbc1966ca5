/**
 * bench/ stays as bench/README.md says: each `bench:<name>` task runs `bench/<folder>/<name>.ts`,
 * no bench runs when its file is imported (a main guard), and no bench borrows the tests' code.
 */
import assert from "node:assert/strict";
import { listBenches } from "../../bench/run.ts";

const ROOT = new URL("../../", import.meta.url);

async function benchSources(dir = "bench"): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(`${dir}/`, ROOT))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "results") found.push(...await benchSources(path));
    else if (entry.isFile && entry.name.endsWith(".ts")) found.push(path);
  }
  return found;
}

Deno.test("every bench task runs the file named after it, under a main guard", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const tasks = Object.keys(config.tasks).filter((t) => t.startsWith("bench:"));
  const listed = await listBenches();
  assert.deepEqual(
    listed.filter((b) => b.command.startsWith("deno task bench:")).map((b) => b.command),
    tasks.map((t) => `deno task ${t}`),
  );
  for (const bench of listed.filter((b) => !b.file.endsWith("_bench.ts"))) {
    const text = await Deno.readTextFile(new URL(bench.file, ROOT));
    assert.match(text, /^if \(import\.meta\.main\)/m, `${bench.file} runs when imported`);
  }
});

Deno.test("no bench imports from tests/", async () => {
  for (const path of await benchSources()) {
    const text = await Deno.readTextFile(new URL(path, ROOT));
    assert.doesNotMatch(text, /from "(\.\.\/)+tests\//, `${path} imports the tests' code`);
  }
});
