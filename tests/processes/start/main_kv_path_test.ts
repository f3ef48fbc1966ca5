/** KV_PATH outside ./data: the start task's permissions refuse it, and main.ts says how to fix it. */
import assert from "node:assert/strict";
import { bareEnv, mainCommand } from "../main_process.ts";

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

/** Runs `mount` (root) or fails the test with its words. */
async function run(command: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(command, { args, stderr: "piped" }).output();
  if (!out.success) throw new Error(`${command}: ${new TextDecoder().decode(out.stderr)}`);
}

Deno.test("a store folder missing or read-only says only 'unable to open database file' (issue 46 #5): it names the folder and the fix now", async (t) => {
  const cwd = await Deno.makeTempDir();
  const readOnly = `${cwd}/data/ro`;
  await Deno.mkdir(readOnly, { recursive: true });
  // Root writes through a folder's mode bits: a read-only mount refuses root too.
  const isRoot = Deno.uid() === 0;
  if (isRoot) await run("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", readOnly]);
  else await Deno.chmod(readOnly, 0o555);
  const start = async (path: string) => {
    const env = bareEnv({ KV_PATH: path, WORKERS: "1" });
    const { code, stdout, stderr } = await mainCommand(cwd, env).output();
    assert.equal(new TextDecoder().decode(stdout), "", "it never started listening");
    return { code, err: new TextDecoder().decode(stderr).trim() };
  };
  try {
    await t.step("a folder that does not exist", async () => {
      const { code, err } = await start("./data/no/such/kv.sqlite3");
      assert.equal(code, 1);
      assert.equal(
        err,
        "Cannot open the store: the folder ./data/no/such of KV_PATH=./data/no/such/kv.sqlite3 " +
          "does not exist: create it (mkdir -p ./data/no/such) or point KV_PATH at a file in a " +
          "folder that exists.",
      );
    });
    await t.step("a folder that takes no writes", async () => {
      const { code, err } = await start("./data/ro/kv.sqlite3");
      assert.equal(code, 1);
      assert.match(
        err,
        /^Cannot open the store: the folder \.\/data\/ro of KV_PATH=\.\/data\/ro\/kv\.sqlite3 is read-only \(.+\): .*make the folder writable/,
      );
      assert.doesNotMatch(err, /unable to open database file/);
    });
  } finally {
    if (isRoot) await run("umount", ["-l", readOnly]);
    else await Deno.chmod(readOnly, 0o755);
    await Deno.remove(cwd, { recursive: true });
  }
});
