/**
 * Cancellations racing applications, acceptances, withdrawals, edits and completions on two
 * service instances sharing one store (each its own KV handle), a job runner beside them: after
 * every step the records recount exactly, explore lists exactly the published tasks, and once the
 * jobs have run the stored applications, an alert's matches and the histories agree. Seeded:
 * `CANCEL_SEED=n` replays one run.
 */
import { deliveryPolicy } from "../../domain/settings.ts";
import { startJobs } from "../../kv/jobs/start.ts";
import { buildListeners } from "../../kv/webhooks/listeners.ts";
import { bearer, sharedInstances, signUp } from "../helpers.ts";
import { testSettings } from "../settings_fixtures.ts";
import {
  assertAlertAgrees,
  assertExploreAgrees,
  assertHistoriesAgree,
  type Get,
} from "./checks.ts";
import { assertRecordsAgree } from "./recount.ts";
import { runScenario, SCENARIO_WORD, type Send } from "./scenario.ts";

const SEEDS = Deno.env.get("CANCEL_SEED") ? [Number(Deno.env.get("CANCEL_SEED"))] : [40, 4001];

Deno.test("rule: cancellations racing every other move keep counts, explore, alerts and histories exact", async (t) => {
  for (const seed of SEEDS) {
    await t.step(`seed ${seed}`, async () => {
      await using fleet = await sharedInstances(2, {
        settings: { RATE_LIMIT_PER_HOUR: "1000000", ANON_RATE_LIMIT_PER_HOUR: "1000000" },
      });
      const [a] = fleet.list;
      await buildListeners(a.kv);
      const jobs = startJobs({
        kv: a.kv,
        now: () => Date.now(),
        webhooks: deliveryPolicy(testSettings()),
      });
      try {
        const people = await Promise.all(Array.from({ length: 6 }, () => signUp(a)));
        const watcher = await signUp(a);
        const made = await a.request("/api/v1/alerts", {
          method: "POST",
          headers: bearer(watcher.token),
          json: { name: "all", filters: { search: SCENARIO_WORD } },
        });
        const alert = { id: (await made.json()).id, token: watcher.token };
        const send: Send = async (member, request) => {
          const svc = fleet.list[member % fleet.list.length];
          const res = await svc.request(request.path, {
            method: request.method,
            headers: bearer(request.token),
            json: request.json,
          });
          const text = await res.text();
          return { status: res.status, body: text ? JSON.parse(text) : null };
        };
        const get: Get = async (path, token) => {
          const res = await fleet.list[1].request(path, { headers: token ? bearer(token) : {} });
          return { status: res.status, body: await res.json(), headers: res.headers };
        };
        const tally = await runScenario({
          seed,
          people,
          send,
          rounds: 30,
          parallel: 5,
          async afterRound(round, tally) {
            const label = `seed ${seed} round ${round}`;
            const recount = await assertRecordsAgree(a.kv, { settled: false, label });
            await assertExploreAgrees(get, recount, label);
            assertHistoriesAgree(tally, recount, label);
            if (round % 6 !== 5) return;
            await jobs.drain();
            const settled = await assertRecordsAgree(a.kv, { settled: true, label });
            await assertAlertAgrees(get, alert, settled, label);
          },
        });
        await jobs.drain();
        const label = `seed ${seed} end`;
        const recount = await assertRecordsAgree(a.kv, { settled: true, label });
        await assertAlertAgrees(get, alert, recount, label);
        assertHistoriesAgree(tally, recount, label);
        const seen = [...tally.answers.keys()].sort();
        for (const wanted of ["cancel 200", "cancel 409 INVALID_TRANSITION", "accept 200"]) {
          if (!seen.includes(wanted)) throw new Error(`seed ${seed}: no ${wanted}: ${seen}`);
        }
      } finally {
        await jobs.stop();
      }
    });
  }
});
