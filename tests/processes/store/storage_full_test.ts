/**
 * A full disk answers 503 STORAGE_FULL: the service runs as `deno task start` (two workers on
 * one port) on a store in a 24 MiB tmpfs; a ballast file fills the disk, and is then removed.
 * Needs root (for `mount`), as CI has; elsewhere the test is ignored.
 */
import assert from "node:assert/strict";
import { bareEnv, followLog, taskCommand } from "../main_process.ts";
import { taskBody } from "../../tasks/task_fixtures.ts";
import { until } from "../../wait.ts";

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
  name:
    "a full disk answers 503 STORAGE_FULL, logs one warning, and /health says so on every worker",
  ignore: !isRoot,
  async fn(t) {
    const dir = await Deno.makeTempDir();
    const data = `${dir}/data`;
    await Deno.mkdir(data);
    await run("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", data]);
    const child = taskCommand(
      "start",
      dir,
      bareEnv({
        PORT: "0",
        WORKERS: "2",
        KV_PATH: "./data/kv.sqlite3",
        PASSWORD_HASH_ITERATIONS: "1000",
        RATE_LIMIT_PER_HOUR: "1000000",
      }),
    ).spawn();
    const log = followLog(child);
    try {
      const listening = await log.waitFor(2, (l) => l.msg === "listening");
      const base = `http://127.0.0.1:${listening[0].port}`;
      const call = async (path: string, init: RequestInit = {}) => {
        const res = await fetch(`${base}${path}`, init);
        return { res, body: await res.json() };
      };
      /**
       * True once `rounds` probes in a row, each on a fresh connection (the kernel spreads those
       * over both workers), answer `expected`: a worker answering otherwise breaks the run.
       */
      const everyWorkerSays = (expected: [number, unknown], rounds = 30) => async () => {
        for (let i = 0; i < rounds; i++) {
          const { res, body } = await call("/health", { headers: { Connection: "close" } });
          try {
            assert.deepEqual([res.status, body], expected);
          } catch {
            return false;
          }
        }
        return true;
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

      // Every worker has answered ok lately: the one that meets no refusal itself holds a fresh
      // writable proof when the disk fills, as a load balancer's probes would have left it.
      await until(everyWorkerSays([200, { status: "ok" }]), { what: "every worker ok" });

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

      await t.step("/health on every worker says the store takes no writes", async () => {
        const { res, body } = await call("/health");
        assert.deepEqual([res.status, body], [503, { status: "read_only" }]);
        // A worker that met no refusal itself learns it from the writable proof going stale.
        await until(everyWorkerSays([503, { status: "read_only" }]), {
          what: "every worker's /health saying read_only",
          everyMs: 200,
          maxEveryMs: 1000,
        });
      });

      await t.step("reads go on working", async () => {
        for (const id of stored) {
          // A fresh connection each: every worker reads, leased rate budget or not.
          const { res, body } = await call(`/v1/tasks/${id}`, { headers: { Connection: "close" } });
          assert.equal(res.status, 200, JSON.stringify(body));
        }
      });

      await t.step("once space is freed, writes succeed and /health recovers", async () => {
        await Deno.remove(ballast);
        const { res } = await post("/v1/tasks", taskBody({ title: "after" }), token);
        assert.equal(res.status, 201);
        // A write that went through outdates the cached probe result; the other worker's own
        // probe write goes through too.
        await until(everyWorkerSays([200, { status: "ok" }]), {
          what: "every worker's /health saying ok again",
          everyMs: 200,
          maxEveryMs: 1000,
        });
      });

      child.kill("SIGTERM");
      await child.status;
      await log.reading;
      await t.step("the log holds at most one warning per worker, and no stack", () => {
        const records: Record<string, unknown>[] = log.lines.map((l) => ({ ...l }));
        const warnings = records.filter((r) =>
          r.level === "warn" && /out of space/.test(String(r.msg))
        );
        assert.ok(warnings.length >= 1 && warnings.length <= 2, JSON.stringify(warnings));
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
