/**
 * A full disk answers 503 STORAGE_FULL: the service runs as its own process on a store in a
 * 24 MiB tmpfs; a ballast file fills the disk, and is then removed. Needs root (for `mount`),
 * as CI has; elsewhere the test is ignored.
 */
import assert from "node:assert/strict";
import { bareEnv, stopMain, taskCommand, waitForListening } from "./main_process.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

const isRoot = Deno.uid() === 0;

async function run(command: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(command, { args, stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Writes `path` until the file system refuses; answers the bytes written. */
async function fillDisk(path: string): Promise<number> {
  const chunk = new Uint8Array(256 * 1024).fill(7);
  using file = await Deno.open(path, { create: true, write: true });
  let written = 0;
  try {
    while (true) written += await file.write(chunk);
  } catch (error) {
    if (!/no space left/i.test(String(error))) throw error;
  }
  // A partial last chunk fits; the disk is now full to the byte.
  try {
    while (true) {
      const n = await file.write(chunk.subarray(0, 512));
      if (n === 0) break;
      written += n;
    }
  } catch (error) {
    if (!/no space left/i.test(String(error))) throw error;
  }
  return written;
}

Deno.test({
  name: "a full disk answers 503 STORAGE_FULL, logs one warning, and /health says so",
  ignore: !isRoot,
  async fn(t) {
    const dir = await Deno.makeTempDir();
    const data = `${dir}/data`;
    await Deno.mkdir(data);
    await run("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", data]);
    const child = taskCommand(
      "serve",
      dir,
      bareEnv({
        PORT: "0",
        KV_PATH: "./data/kv.sqlite3",
        PASSWORD_HASH_ITERATIONS: "1000",
        RATE_LIMIT_PER_HOUR: "1000000",
      }),
    ).spawn();
    try {
      const { port, rest } = await waitForListening(child);
      const base = `http://127.0.0.1:${port}`;
      const call = async (path: string, init: RequestInit = {}) => {
        const res = await fetch(`${base}${path}`, init);
        return { res, body: await res.json() };
      };
      const email = "full@example.com";
      const password = "correct horse battery";
      const post = (path: string, json: unknown, token?: string) =>
        call(path, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            ...(token ? { Authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify(json),
        });
      assert.equal(
        (await post("/v1/users", { email, password, firstName: "Fay" })).res.status,
        201,
      );
      const { token } = (await post("/v1/auth/token", { email, password })).body;
      const stored: string[] = [];
      for (let i = 0; i < 5; i++) {
        const { res, body } = await post("/v1/tasks", taskBody({ title: `before ${i}` }), token);
        assert.equal(res.status, 201);
        stored.push(body.id);
      }

      const ballast = `${data}/ballast`;
      await fillDisk(ballast);

      await t.step("creations answer 503 STORAGE_FULL with Retry-After, never 500", async () => {
        const statuses = new Map<number, number>();
        let refused = 0;
        for (let i = 0; refused < 20 && i < 2000; i++) {
          const big = taskBody({ title: `during ${i}`, description: "x".repeat(9000) });
          const { res, body } = await post("/v1/tasks", big, token);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 201) stored.push(body.id);
          else {
            assert.equal(res.status, 503, JSON.stringify(body));
            assert.equal(body.code, "STORAGE_FULL");
            assert.equal(res.headers.get("Retry-After"), "60");
            refused++;
          }
        }
        assert.equal(refused, 20, `statuses: ${JSON.stringify([...statuses])}`);
      });

      await t.step("/health says the store takes no writes", async () => {
        const { res, body } = await call("/health");
        assert.deepEqual([res.status, body], [503, { status: "read_only" }]);
      });

      await t.step("reads go on working", async () => {
        for (const id of stored) {
          assert.equal((await call(`/v1/tasks/${id}`)).res.status, 200);
        }
      });

      await t.step("once space is freed, writes succeed and /health recovers", async () => {
        await Deno.remove(ballast);
        const { res } = await post("/v1/tasks", taskBody({ title: "after" }), token);
        assert.equal(res.status, 201);
        // A write that went through outdates the cached probe result.
        const health = await call("/health");
        assert.deepEqual([health.res.status, health.body], [200, { status: "ok" }]);
      });

      const { log } = await stopMain(child, rest);
      await t.step("the log holds one warning, and no stack", () => {
        const records = log.map((line) => JSON.parse(line));
        const warnings = records.filter((r) => r.level === "warn" && /out of space/.test(r.msg));
        assert.equal(warnings.length, 1, JSON.stringify(warnings));
        assert.deepEqual(records.filter((r) => r.stack !== undefined || r.level === "error"), []);
      });
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already stopped
      }
      await child.status;
      await run("umount", ["-l", data]);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
