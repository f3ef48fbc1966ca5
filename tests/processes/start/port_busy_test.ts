/**
 * A second instance must not take half the traffic of a busy port: every way of starting the
 * service refuses a port another program holds, in one line naming it, and the instance already
 * there keeps every request; SHARE_PORT=true joins on purpose.
 */
import assert from "node:assert/strict";
import { bareEnv, followLog, startMain, taskCommand } from "../main_process.ts";

/** A port free at the time of asking, for an instance that must be started on a known one. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Starts `task` in its own folder (its own store) on `port`; answers how it ended, or that it
 * listened, whichever came first, running `meanwhile` then and stopping it in that case.
 */
async function startSecond(
  task: string,
  port: number,
  options: { env?: Record<string, string>; meanwhile?: () => Promise<void> } = {},
) {
  const extra = options.env ?? {};
  const cwd = await Deno.makeTempDir();
  const child = taskCommand(task, cwd, bareEnv({ PORT: String(port), WORKERS: "2", ...extra }))
    .spawn();
  const log = followLog(child);
  const listened = log.waitFor(1, (l) => l.msg === "listening").then(() => "listened" as const);
  const ended = child.status.then(() => "ended" as const);
  const first = await Promise.race([listened.catch(() => ended), ended]);
  try {
    await options.meanwhile?.();
  } finally {
    if (first === "listened") child.kill("SIGTERM");
  }
  const status = await child.status;
  await log.reading;
  const stderr = await log.stderr;
  await Deno.remove(cwd, { recursive: true });
  return { first, status, stderr };
}

Deno.test("a second instance on a busy port is refused in one line, the first keeps its traffic", async (t) => {
  const cwd = await Deno.makeTempDir();
  const port = freePort();
  const child = startMain(cwd, bareEnv({ PORT: String(port), WORKERS: "2" }));
  const log = followLog(child);
  await log.waitFor(2, (l) => l.msg === "listening");
  const base = `http://127.0.0.1:${port}`;
  const created = await fetch(`${base}/v1/users`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      email: "first@example.com",
      password: "correct horse battery",
      firstName: "First",
    }),
  });
  assert.equal(created.status, 201);
  const { id } = await created.json();

  /** Fresh connections each, which the kernel spreads over any listener on the port: the user
   * lives in the first instance's store only. */
  const firstKeepsEveryRequest = async () => {
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${base}/v1/users/${id}/avatar.svg`, {
        headers: { Connection: "close" },
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  };

  for (const task of ["start", "dev", "serve"]) {
    await t.step(`deno task ${task} on the busy port exits 1 with one line naming it`, async () => {
      const second = await startSecond(task, port, { meanwhile: firstKeepsEveryRequest });
      assert.equal(second.first, "ended", `deno task ${task} listened beside the first instance`);
      assert.equal(second.status.code, 1);
      const lines = second.stderr.trim().split("\n");
      assert.equal(lines.length, 1, second.stderr);
      assert.match(lines[0], new RegExp(`^Cannot listen on port ${port}: .*SHARE_PORT`));
    });
  }

  await t.step("the first instance keeps every request", firstKeepsEveryRequest);

  await t.step("SHARE_PORT=true joins the port on purpose", async () => {
    const second = await startSecond("start", port, { env: { SHARE_PORT: "true" } });
    assert.equal(second.first, "listened", second.stderr);
    assert.equal(second.status.code, 0);
  });

  child.kill("SIGTERM");
  assert.equal((await child.status).code, 0);
  await log.reading;
  await log.stderr;
  await Deno.remove(cwd, { recursive: true });
});
