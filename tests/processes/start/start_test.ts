/** `deno task start` (scripts/start.ts): WORKERS processes of main.ts on one port and one store. */
import assert from "node:assert/strict";
import { bareEnv, denoCommand, followLog, root, startMain } from "../main_process.ts";
import { WATCHED_CODE } from "../../../scripts/start.ts";
import { taskRunArgs } from "../../../scripts/task_line.ts";

Deno.test("deno task start serves on WORKERS processes sharing one port and one store", async (t) => {
  const cwd = await Deno.makeTempDir();
  const child = startMain(cwd, bareEnv({ PORT: "0", WORKERS: "2" }));
  const log = followLog(child);
  const listening = await log.waitFor(2, (l) => l.msg === "listening");
  const base = `http://127.0.0.1:${listening[0].port}`;

  await t.step("two workers listen on one port, each its own process", () => {
    assert.equal(listening[0].port, listening[1].port);
    assert.notEqual(listening[0].pid, listening[1].pid);
    assert.deepEqual(listening.map((l) => l.worker).sort(), [0, 1]);
  });

  await t.step(
    "fresh connections through the shared port all see what one worker wrote",
    async () => {
      const email = "start@example.com";
      const password = "correct horse battery";
      const created = await fetch(`${base}/v1/users`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, password, firstName: "Start" }),
      });
      assert.equal(created.status, 201);
      const { id } = await created.json();
      // The kernel spreads new connections over the workers: each one reads the store afresh.
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${base}/v1/users/${id}/avatar.svg`, {
          headers: { Connection: "close" },
        });
        assert.equal(res.status, 200);
        await res.body?.cancel();
      }
    },
  );

  await t.step("a worker killed with SIGKILL is started again while the other serves", async () => {
    Deno.kill(listening[0].pid!, "SIGKILL");
    // Connections the kernel had queued for the killed worker are reset with it; once it is
    // gone (the supervisor saw it end), new ones reach the other worker. A fresh client: a
    // kept-alive connection to the killed worker died with it too.
    await log.waitFor(1, (l) => l.msg === "worker ended; starting it again");
    using client = Deno.createHttpClient({});
    const health = await fetch(`${base}/health`, { client });
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const again = await log.waitFor(3, (l) => l.msg === "listening");
    assert.equal(again[2].worker, listening[0].worker);
    assert.notEqual(again[2].pid, listening[0].pid);
  });

  await t.step("SIGTERM stops every worker, each draining and flushing, and exits 0", async () => {
    child.kill("SIGTERM");
    const status = await child.status;
    await log.reading;
    await log.stderr;
    assert.equal(status.code, 0);
    const stops = log.lines.filter((l) => l.msg === "shutting down");
    assert.equal(stops.length, 2);
  });
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("orphaned workers: a kill -9 of the supervisor stops its workers, each draining and flushing", async () => {
  const cwd = await Deno.makeTempDir();
  const child = startMain(cwd, bareEnv({ PORT: "0", WORKERS: "2" }));
  const log = followLog(child);
  const listening = await log.waitFor(2, (l) => l.msg === "listening");
  const base = `http://127.0.0.1:${listening[0].port}`;
  const health = await fetch(`${base}/health`, { headers: { Connection: "close" } });
  assert.equal(health.status, 200);
  await health.body?.cancel();

  child.kill("SIGKILL");
  assert.equal((await child.status).signal, "SIGKILL");
  // The workers write to the supervisor's stdout pipe: it ends only when the last of them exits.
  const stops = await log.waitFor(2, (l) => l.msg === "shutting down").catch((error) => {
    for (const { pid } of listening) Deno.kill(pid!, "SIGKILL"); // leave no orphan behind
    throw error;
  });
  assert.deepEqual(stops.map((l) => l.signal), ["supervisor gone", "supervisor gone"]);
  await log.reading;
  await log.stderr;
  // Nothing serves on the port any more: a new service would not share it with old code.
  await assert.rejects(fetch(`${base}/health`, { headers: { Connection: "close" } }));
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("deno task start stops with the workers' exit code when they cannot start", async () => {
  const cwd = await Deno.makeTempDir();
  const { code, stderr } = await startMainOutput(cwd, { KV_PATH: "./data/no/such/dir/kv.sqlite3" });
  assert.equal(code, 1);
  assert.match(stderr, /KV_PATH/);
  await Deno.remove(cwd, { recursive: true });
});

async function startMainOutput(cwd: string, env: Record<string, string>) {
  const child = startMain(cwd, bareEnv({ PORT: "0", WORKERS: "2", ...env }));
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code: status.code, stdout, stderr };
}

/**
 * A copy of the project's code in a folder of its own: a test that changes code changes the
 * copy's, so a `deno task dev` someone runs from the project is never restarted by the tests.
 */
async function copyOfProject(): Promise<string> {
  const copy = await Deno.makeTempDir({ prefix: "project-copy-" });
  const parts = [...WATCHED_CODE, "scripts", "deno.json", "deno.lock"];
  const out = await new Deno.Command("cp", {
    args: ["-r", ...parts.map((p) => `${root}${p}`), copy],
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return `${copy}/`;
}

/** Every change the project's own watched code sees while `work` runs (none, for a test). */
async function changesToProjectDuring(work: () => Promise<void>): Promise<string[]> {
  const watcher = Deno.watchFs(WATCHED_CODE.map((p) => `${root}${p}`));
  const seen: string[] = [];
  const watching = (async () => {
    for await (const event of watcher) {
      if (event.kind !== "access") seen.push(`${event.kind} ${event.paths.join(", ")}`);
    }
  })();
  try {
    await work();
  } finally {
    watcher.close();
    await watching;
  }
  return seen;
}

Deno.test("deno task dev restarts its workers when the service's code changes, and the tests never touch the project's code (issue 46 #5)", async () => {
  const cwd = await Deno.makeTempDir();
  const project = await copyOfProject();
  const changes = await changesToProjectDuring(async () => {
    const run = [...taskRunArgs("dev")].map((arg) => arg.replaceAll(root, project));
    const child = denoCommand(run, cwd, bareEnv({ PORT: "0", WORKERS: "1" })).spawn();
    const log = followLog(child);
    const [first] = await log.waitFor(1, (l) => l.msg === "listening");
    // A change the watcher sees, without changing a byte of the code; io/ is the service's code
    // too (the log sink, timers, the webhook client).
    const file = `${project}io/log.ts`;
    await Deno.utime(file, new Date(), new Date());
    const listening = await log.waitFor(2, (l) => l.msg === "listening");
    assert.notEqual(listening[1].pid, first.pid);
    assert.ok(log.lines.some((l) => l.msg === "code changed; restarting the workers"));
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
    await log.reading;
    await log.stderr;
  });
  assert.deepEqual(changes, [], "a running deno task dev of the project would have restarted");
  await Deno.remove(cwd, { recursive: true });
  await Deno.remove(project, { recursive: true });
});
