/**
 * Recording matches a part of the alerts at a time (kv/alerts/match_parts.ts): a run cut short
 * by a crash after some parts committed, two runs at once and the job itself afterwards record
 * every match once and send every `task.matched` once, to the endpoints of owners who have one.
 */
import assert from "node:assert/strict";
import { findMatches, matchTask } from "../../kv/alerts/matching.ts";
import { matchesPerAtomic, recordMatches } from "../../kv/alerts/match_parts.ts";
import { startJobs } from "../../kv/jobs/start.ts";
import { tasks } from "../../kv/keyspace.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { exploreItemOf } from "../../domain/alerts/match.ts";
import { bearer, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, workingService } from "../webhooks/webhook_fixtures.ts";
import { postAlert } from "./alert_fixtures.ts";

/** Filters the default test task (a sink in Paris, 80 EUR) matches, and one it does not. */
const MATCHING = [
  { countryCode: "FR" },
  { cityName: "Paris" },
  { search: "sink" },
  { latitude: 48.85, longitude: 2.35, radiusKm: 10 },
  { countryCode: "FR", payment: "Paid", minBudget: 50 },
  { search: "kitchen", regionName: "paris" },
];
const ELSEWHERE = { cityName: "Lyon" };

/** The store, whose commits fail (as a process dying would) once `commits` have gone through. */
function dyingAfter(kv: Deno.Kv, commits: number): Deno.Kv {
  let left = commits;
  return new Proxy(kv, {
    get(target, name) {
      if (name !== "atomic") {
        const value = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = () => left-- > 0 ? commit() : Promise.reject(new Error("process died"));
        return op;
      };
    },
  });
}

async function matchKeys(kv: Deno.Kv, alertIds: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const id of alertIds) {
    for await (const entry of kv.list<string>({ prefix: ["alert_matches", id] })) {
      found.push(`${id}/${entry.value}`);
    }
  }
  return found.sort();
}

Deno.test("a crash mid-way, two runs at once and the job again record each match and send each event once", async () => {
  await using svc = await workingService();
  // This test runs the matching itself first; the service's runner comes back at the end.
  await svc.jobs.stop();
  await using receiver = startReceiver();
  const owners: { id: string; token: string }[] = [];
  for (let i = 0; i < 4; i++) owners.push(await signUp(svc));
  const poster = await signUp(svc);
  // Owners 0 and 1 have an endpoint for task.matched; 2 and 3 none.
  for (const owner of owners.slice(0, 2)) {
    const hook = await addEndpoint(svc, owner.token, {
      url: receiver.url,
      events: ["task.matched"],
    });
    receiver.secrets.push(hook.secret);
  }
  const matching: { id: string; userId: string }[] = [];
  const others: string[] = [];
  for (const owner of owners) {
    for (const filters of MATCHING) {
      matching.push({ id: (await postAlert(svc, owner.token, { filters })).id, userId: owner.id });
    }
    others.push((await postAlert(svc, owner.token, { filters: ELSEWHERE })).id);
  }
  const posted = await postTask(svc, poster.token);
  const task = (await svc.kv.get<TaskRecord>(tasks.record(posted.id))).value!;
  const { matched } = await findMatches(svc.kv, task);
  assert.equal(matched.length, matching.length);
  const run = { task, matched, now: svc.deps.now(), perAtomic: 3 };
  const all = matching.map((a) => `${a.id}/${task.id}`).sort();

  // Dies after two parts of at most three matches.
  await assert.rejects(recordMatches(dyingAfter(svc.kv, 2), run), /process died/);
  const partial = await matchKeys(svc.kv, matching.map((a) => a.id));
  assert.ok(partial.length > 0 && partial.length <= 6, `${partial.length} recorded before`);

  // Two runs again at once: the rest, once.
  const [a, b] = await Promise.all([recordMatches(svc.kv, run), recordMatches(svc.kv, run)]);
  assert.equal(partial.length + a.recorded + b.recorded, matching.length);
  assert.deepEqual(await matchKeys(svc.kv, matching.map((m) => m.id)), all);

  // The job itself (its whole matching in one part): nothing more.
  const jobs = startJobs({ kv: svc.kv, now: () => svc.deps.now(), webhooks: svc.policy });
  try {
    await jobs.drain();
    const expected = matching.filter((m) => m.userId === owners[0].id || m.userId === owners[1].id);
    await receiver.waitFor((r) => r.length >= expected.length);
    await jobs.drain();
    const sent = receiver.received.map((r) => `${r.event.data.alertId}/${r.event.data.task.id}`);
    assert.deepEqual(sent.sort(), expected.map((m) => `${m.id}/${task.id}`).sort());
    assert.deepEqual(await matchKeys(svc.kv, matching.map((m) => m.id)), all);
    assert.deepEqual(await matchKeys(svc.kv, others), []);
  } finally {
    await jobs.stop();
  }
});

Deno.test("the largest part, every match with an event, fits the strictest backend's atomic limits", async () => {
  await using svc = await workingService();
  await svc.jobs.stop();
  await using receiver = startReceiver();
  // The largest event: title and place name at their longest, in 3-byte characters.
  const long = "工".repeat(200);
  const posted = await postTask(svc, (await signUp(svc)).token, {
    title: long,
    location: { coordinates: [2.3522, 48.8566], type: "city", name: long, countryCode: "FR" },
  });
  const task = (await svc.kv.get<TaskRecord>(tasks.record(posted.id))).value!;
  const most = matchesPerAtomic(task);
  assert.ok(most >= 100, `${most} matches an atomic`);
  for (let made = 0; made < most;) {
    const owner = await signUp(svc);
    await addEndpoint(svc, owner.token, { url: receiver.url, events: ["task.matched"] });
    for (let i = 0; i < 20 && made < most; i++, made++) {
      await postAlert(svc, owner.token, { filters: { countryCode: "FR" } });
    }
  }
  const { matched } = await findMatches(svc.kv, task);
  assert.equal(matched.length, most);
  // svc.kv refuses any atomic over the limits (kv/store/limits.ts).
  const done = await recordMatches(svc.kv, {
    task,
    matched,
    now: svc.deps.now(),
  });
  assert.deepEqual(
    { commits: done.commits, recorded: done.recorded, events: done.events },
    { commits: 1, recorded: most, events: most },
  );
});

Deno.test("matches whose owners have no endpoint write their key and live log entry, so more of them share an atomic", async () => {
  await using svc = await workingService();
  await svc.jobs.stop();
  const poster = await signUp(svc);
  const posted = await postTask(svc, poster.token);
  const task = (await svc.kv.get<TaskRecord>(tasks.record(posted.id))).value!;
  const most = matchesPerAtomic(task);
  const count = Math.floor(1.5 * most);
  // Owners with no endpoint: each match is its key and its event in the owner's live log (their
  // streams hear it), no webhook body and no job.
  const matched = Array.from({ length: count }, () => ({
    alert: { id: crypto.randomUUID(), userId: crypto.randomUUID() },
    item: exploreItemOf(task),
  }));
  // svc.kv refuses any atomic over the limits (kv/store/limits.ts).
  const done = await recordMatches(svc.kv, { task, matched, now: svc.deps.now() });
  assert.deepEqual(
    { commits: done.commits, recorded: done.recorded, events: done.events },
    { commits: 1, recorded: count, events: 0 },
  );
  const logged = await Array.fromAsync(svc.kv.list({ prefix: ["live_pending"] }));
  assert.deepEqual(
    logged.map((e) => e.key[1]).filter((owner) => owner !== poster.id).toSorted(),
    matched.map((m) => m.alert.userId).toSorted(),
  );
});

Deno.test("an account whose purge is under way keeps no match and hears nothing", async () => {
  await using svc = await workingService();
  await svc.jobs.stop();
  await using receiver = startReceiver();
  const [leaving, staying, poster] = [await signUp(svc), await signUp(svc), await signUp(svc)];
  const ids: Record<string, string> = {};
  for (const owner of [leaving, staying]) {
    const hook = await addEndpoint(svc, owner.token, {
      url: receiver.url,
      events: ["task.matched"],
    });
    receiver.secrets.push(hook.secret);
    ids[owner.id] = (await postAlert(svc, owner.token, { filters: { countryCode: "FR" } })).id;
  }
  // Deleted, its purge job not yet run: its alert is still filed.
  const deleted = await svc.request(`/v1/users/${leaving.id}`, {
    method: "DELETE",
    headers: bearer(leaving.token),
  });
  assert.equal(deleted.status, 200);
  const posted = await postTask(svc, poster.token);
  await matchTask({ kv: svc.kv, now: svc.deps.now }, { taskId: posted.id });
  assert.deepEqual(await matchKeys(svc.kv, Object.values(ids)), [
    `${ids[staying.id]}/${posted.id}`,
  ]);
  const jobs = startJobs({ kv: svc.kv, now: () => svc.deps.now(), webhooks: svc.policy });
  try {
    await jobs.drain();
    await receiver.waitFor((r) => r.length >= 1);
    await jobs.drain();
    assert.deepEqual(receiver.received.map((r) => r.event.data.alertId), [ids[staying.id]]);
  } finally {
    await jobs.stop();
  }
});
