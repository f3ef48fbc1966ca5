/**
 * Cancellations racing applications, acceptances, declines, withdrawals, edits and completions
 * on three `main.ts` processes sharing one KV file, over real HTTP (docs/contract.md sections 12
 * and 20): after every round the store, read directly, recounts exactly and explore lists exactly
 * the published tasks; once the processes' own job runners have run what is due, the stored
 * applications, an alert's matches and the histories agree. Seeded (`CANCEL_SEED=n`).
 */
import assert from "node:assert/strict";
import { jobs } from "../../../kv/keyspace.ts";
import {
  assertAlertAgrees,
  assertExploreAgrees,
  assertHistoriesAgree,
  type Get,
} from "../../cancellation/checks.ts";
import { assertRecordsAgree } from "../../cancellation/recount.ts";
import { runScenario, SCENARIO_WORD, type Send } from "../../cancellation/scenario.ts";
import { until } from "../../wait.ts";
import { call, fleetSignUp, startFleet } from "../fleet.ts";

const SEED = Number(Deno.env.get("CANCEL_SEED") ?? 4040);
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Until no job is due within the hour (the review windows' closes are days ahead). */
async function jobsDone(kv: Deno.Kv) {
  await until(async () => {
    for await (
      const _ of kv.list({ start: jobs.start(), end: jobs.dueBefore(Date.now() + 3_600_000) })
    ) {
      return false;
    }
    return true;
  }, { timeoutMs: 120_000, everyMs: 50, maxEveryMs: 500, what: "the fleet's jobs" });
}

Deno.test("cancellations racing every move on three processes keep the store exact", async () => {
  await using fleet = await startFleet(3, {
    RATE_LIMIT_PER_HOUR: "1000000",
    ANON_RATE_LIMIT_PER_HOUR: "1000000",
  });
  const people = [];
  for (let i = 0; i < 6; i++) {
    const token = await fleetSignUp(fleet.base(i), `c${i}-${crypto.randomUUID()}@example.com`);
    const me = await call(`${fleet.base(i)}/v1/users/me`, { headers: bearer(token) });
    people.push({ id: me.body.id as string, token });
  }
  const watcher = await fleetSignUp(fleet.base(0), `w-${crypto.randomUUID()}@example.com`);
  const made = await call(`${fleet.base(1)}/api/v1/alerts`, {
    method: "POST",
    headers: bearer(watcher),
    json: { name: "all", filters: { search: SCENARIO_WORD } },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const alert = { id: made.body.id as string, token: watcher };
  const send: Send = (member, request) =>
    call(`${fleet.base(member)}${request.path}`, {
      method: request.method,
      headers: bearer(request.token),
      json: request.json,
    });
  let reads = 0;
  // With a credential, so that no answer is one a shared cache may keep.
  const get: Get = (path, token) =>
    call(`${fleet.base(reads++)}${path}`, { headers: bearer(token ?? watcher) });
  await using kv = await Deno.openKv(`${fleet.cwd}/data/marketplace.sqlite3`);
  const tally = await runScenario({
    seed: SEED,
    people,
    send,
    rounds: 14,
    parallel: 6,
    async afterRound(round, tally) {
      const label = `seed ${SEED} round ${round}`;
      const recount = await assertRecordsAgree(kv, { settled: false, label });
      await assertExploreAgrees(get, recount, label);
      assertHistoriesAgree(tally, recount, label);
      if (round % 4 !== 3) return;
      await jobsDone(kv);
      const settled = await assertRecordsAgree(kv, { settled: true, label });
      await assertAlertAgrees(get, alert, settled, label);
    },
  });
  await jobsDone(kv);
  const recount = await assertRecordsAgree(kv, { settled: true, label: "end" });
  await assertAlertAgrees(get, alert, recount, "end");
  assertHistoriesAgree(tally, recount, "end");
  const seen = [...tally.answers.keys()];
  for (const wanted of ["cancel 200", "accept 200", "withdraw 200"]) {
    assert.ok(seen.includes(wanted), `seed ${SEED}: no ${wanted}: ${seen}`);
  }
});
