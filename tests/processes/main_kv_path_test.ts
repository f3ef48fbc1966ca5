/** KV_PATH outside ./data: the start task's permissions refuse it, and main.ts says how to fix it. */
import assert from "node:assert/strict";
import { bareEnv, mainCommand } from "./main_process.ts";

Deno.test("a KV_PATH outside ./data stops main.ts with a hint naming KV_PATH and the permission flags", async (t) => {
  const cwd = await Deno.makeTempDir();
  const elsewhere = await Deno.makeTempDir();
  try {
    for (const path of [`${elsewhere}/kv.sqlite3`, "../kv.sqlite3", "kv.sqlite3"]) {
      await t.step(`KV_PATH=${path}`, async () => {
        const { code, stdout, stderr } = await mainCommand(cwd, bareEnv({ KV_PATH: path }))
          .output();
        const err = new TextDecoder().decode(stderr);
        assert.equal(code, 1);
        assert.match(
          err,
          new RegExp(`KV_PATH=${path.replaceAll(".", "\\.")} lies outside \\./data`),
        );
        assert.match(err, /--allow-read=\.\/data --allow-write=\.\/data/);
        assert.match(
          err,
          /Put the file under \.\/data, or run main\.ts with --allow-read=<folder>/,
        );
        assert.equal(new TextDecoder().decode(stdout), "", "it never started listening");
      });
    }
    await t.step("no file was created outside ./data", async () => {
      assert.deepEqual(await Array.fromAsync(Deno.readDir(elsewhere)), []);
    });
  } finally {
    await Deno.remove(cwd, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});
