/**
 * An idle instance: its background polls and syncs pause after IDLE_AFTER_SECONDS without a
 * request, so it reads nothing from the store, and the next request finds it caught up.
 */
import assert from "node:assert/strict";
import { meter } from "../../kv/store/meter.ts";
import { jobPollTimer, startJobs } from "../../kv/jobs/start.ts";
import { instanceTimers } from "../../routes/router/deps.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { until } from "../wait.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("an idle instance makes no store reads and catches up before its next answer", async (t) => {
  const path = await Deno.makeTempFile({ suffix: ".sqlite3" });
  const metered = meter(await Deno.openKv(path), { logReads: true });
  const otherKv = await Deno.openKv(path);
  {
    await using idle = await setup({ kv: metered.kv, settings: { IDLE_AFTER_SECONDS: 0.5 } });
    await using other = await setup({ kv: otherKv });
    // As main.ts runs them: the job runner's poll is one of the background jobs.
    const jobs = startJobs({ kv: metered.kv, now: () => idle.deps.now() });
    const background = instanceTimers(idle.deps).add(jobPollTimer(jobs));
    background.start();
    const ada = await signUp(idle);
    const key = await createKey(idle, ada.token);

    await t.step("while requests come, the jobs poll the store", async () => {
      assert.equal(
        (await idle.request("/v1/users/me", { headers: apiKey(key.value) })).status,
        200,
      );
      background.touch();
      metered.reset();
      await until(() => metered.usage.reads > 0, { what: "a poll of the change markers" });
      assert.equal(background.idle, false);
    });

    await t.step(
      "after IDLE_AFTER_SECONDS without a request, nothing is read or written",
      async () => {
        await until(() => background.idle, { what: "the pause" });
        await background.flushed(); // the writes it held went out as it paused
        // A look of the job runner's begun before the pause (its first, or one a wake began) is
        // not a poll: let it end.
        await jobs.drain();
        metered.reset();
        await sleep(1_500);
        assert.deepEqual(metered.usage, {
          reads: 0,
          readUnits: 0,
          readBytes: 0,
          commits: 0,
          writeUnits: 0,
          writeBytes: 0,
        }, `read while idle: ${metered.readLog.join(", ")}`);
      },
    );

    await t.step("a key revoked elsewhere meanwhile is refused by the first request", async () => {
      const revoked = await other.request(`/api/v1/keys/${key.id}`, {
        method: "DELETE",
        headers: bearer(ada.token),
      });
      assert.equal(revoked.status, 200);
      background.touch();
      const res = await idle.request("/v1/users/me", { headers: apiKey(key.value) });
      assert.equal(res.status, 401);
      assert.equal(background.idle, false, "the request woke the jobs");
    });

    await background.stop();
    await jobs.stop();
  }
  otherKv.close();
  metered.kv.close();
  await Deno.remove(path);
});
