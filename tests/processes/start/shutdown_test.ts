/**
 * A clean shutdown logs no error: a SIGTERM of `deno task start` logged "Database is
 * closed" from a cache poll that was under way when the store closed. The background stops with
 * its runs finished, before the store closes.
 */
import assert from "node:assert/strict";
import { Timers } from "../../../io/timers.ts";
import { webhooks } from "../../../kv/keyspace.ts";
import { bareEnv, followLog, startMain } from "../main_process.ts";

Deno.test("Timers.stop waits for the runs under way before it resolves", async () => {
  const errors: string[] = [];
  let started = () => {};
  const running = new Promise<void>((resolve) => started = resolve);
  let finish = () => {};
  let finished = false;
  const background = new Timers({
    idleAfterMs: Infinity,
    now: () => Date.now(),
    onError: (job, error) => errors.push(`${job}: ${error.message}`),
  }).add({
    name: "poll",
    everyMs: 1,
    run: () => {
      started();
      return new Promise<void>((resolve) => {
        finish = () => {
          finished = true;
          resolve();
        };
      });
    },
  });
  background.start();
  await running;
  let stopped = false;
  const stopping = background.stop().then(() => stopped = true);
  // Give stop() every chance to resolve early: it must not, while the run is under way.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(stopped, false, "stop() resolved with a run still under way");
  finish();
  await stopping;
  assert.ok(finished);
  assert.deepEqual(errors, []);
});

Deno.test("a SIGTERM of deno task start, busy or idle, logs no error", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "shutdown_test_" });
  try {
    for (const round of ["busy", "idle"]) {
      const child = startMain(cwd, bareEnv({ PORT: "0", WORKERS: "2" }));
      const log = followLog(child);
      const [{ port }] = await log.waitFor(2, (l) => l.msg === "listening");
      const base = `http://127.0.0.1:${port}`;
      // Keyed traffic keeps every background job busy (cache polls, syncs, last-use flushes).
      const signUp = await fetch(`${base}/v1/users`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          email: `${round}-${crypto.randomUUID()}@example.com`,
          password: "correct horse battery",
          firstName: "S",
        }),
      });
      assert.equal(signUp.status, 201);
      await signUp.body?.cancel();
      const traffic = round === "busy"
        ? Array.from(
          { length: 40 },
          () =>
            fetch(`${base}/v1/tasks/explore`, { headers: { Connection: "close" } })
              .then((res) => res.body?.cancel()).catch(() => {}),
        )
        : [];
      child.kill("SIGTERM");
      await Promise.all(traffic);
      const status = await child.status;
      await log.reading;
      const errText = await log.stderr;
      assert.equal(status.code, 0, errText);
      const errorLines = log.lines.filter((l) => l.level === "error" || /closed/i.test(l.msg));
      assert.deepEqual(errorLines, [], `${round}: the shutdown logged errors`);
      assert.doesNotMatch(errText, /error/i, `${round}: stderr`);
      assert.equal(log.lines.filter((l) => l.msg === "shutting down").length, 2);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("a SIGTERM while the store is being brought up logs no error; the next start finishes it", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "shutdown_test_" });
  try {
    // A store from before the task.matched listeners' shards, with enough subscriptions that
    // building them is still under way when the service has just started listening.
    await Deno.mkdir(`${cwd}/data`);
    const kv = await Deno.openKv(`${cwd}/data/marketplace.sqlite3`);
    for (let batch = 0; batch < 120; batch++) {
      const op = kv.atomic();
      for (let i = 0; i < 500; i++) {
        const userId = crypto.randomUUID();
        op.set(webhooks.subscription(userId), { events: ["task.matched"], revision: userId });
      }
      assert.ok((await op.commit()).ok);
    }
    kv.close();
    const child = startMain(cwd, bareEnv({ PORT: "0", WORKERS: "1" }));
    const log = followLog(child);
    await log.waitFor(1, (l) => l.msg === "listening");
    child.kill("SIGTERM");
    const status = await child.status;
    await log.reading;
    assert.equal(status.code, 0, await log.stderr);
    assert.deepEqual(log.lines.filter((l) => l.level === "error"), []);
    // The upgrade was waited for: it either finished or says it was left for the next start.
    const upgrade = log.lines.filter((l) => /task\.matched listeners/.test(l.msg));
    assert.equal(upgrade.length, 1, JSON.stringify(log.lines));

    const again = startMain(cwd, bareEnv({ PORT: "0", WORKERS: "1" }));
    const next = followLog(again);
    await next.waitFor(1, (l) => l.msg === "task.matched listeners built");
    again.kill("SIGTERM");
    assert.equal((await again.status).code, 0, await next.stderr);
    await next.reading;
    assert.deepEqual(next.lines.filter((l) => l.level === "error"), []);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
