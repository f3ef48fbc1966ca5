/**
 * Invariants of applications under concurrent and random operations: a task's acceptedCount is
 * the number of its accepted applications and never exceeds maxPeople, on two store handles.
 */
import assert from "node:assert/strict";
import type { ApplicationRecord } from "../../domain/application.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { applications, tasks } from "../../kv/keyspace.ts";
import { purgeUser } from "../../kv/users/user_purge.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { bearer, sharedInstances, signUp, type TestContext } from "../helpers.ts";
import { assertTaskIndexesConsistent } from "../tasks/task_consistency.ts";
import { postTask } from "../tasks/task_fixtures.ts";

type User = Awaited<ReturnType<typeof signUp>>;

async function send(svc: TestContext, user: User, method: string, path: string, json?: unknown) {
  const res = await svc.request(path, { method, headers: bearer(user.token), json });
  const body = await res.json();
  return { status: res.status, body };
}

/** Every task's count against its applications as stored. */
async function assertCountsAgree(kv: Deno.Kv) {
  const accepted = new Map<string, number>();
  for await (const entry of kv.list<ApplicationRecord>({ prefix: ["applications"] })) {
    if (entry.value.status !== "accepted") continue;
    accepted.set(entry.value.taskId, (accepted.get(entry.value.taskId) ?? 0) + 1);
  }
  for await (const entry of kv.list<TaskRecord>({ prefix: tasks.recordPrefix() })) {
    const task = entry.value;
    const count = task.acceptedCount ?? 0;
    assert.ok(count <= task.maxPeople, `${task.id}: ${count} accepted of ${task.maxPeople}`);
    if (task.deletedAt === null && task.status === "published") {
      assert.equal(count, accepted.get(task.id) ?? 0, `${task.id}: count and applications`);
    }
  }
}

Deno.test("rule: lowering maxPeople while acceptances arrive never leaves more accepted than maxPeople", async () => {
  await using fleet = await sharedInstances(2, {
    settings: { RATE_LIMIT_PER_HOUR: "100000" },
  });
  const [a, b] = fleet.list;
  const owner = await signUp(a);
  const task = await postTask(a, owner.token, { maxPeople: 6 });
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) {
    const user = await signUp(a);
    const res = await send(a, user, "POST", `/v1/tasks/${task.id}/applications`, {
      message: `offer ${i}`,
    });
    ids.push(res.body.id);
  }
  const results = await Promise.all([
    ...ids.map((id, i) =>
      send([a, b][i % 2], owner, "PATCH", `/v1/applications/${id}`, { status: "accepted" })
    ),
    send(b, owner, "PATCH", `/v1/tasks/${task.id}`, { maxPeople: 2 }),
  ]);
  const lowered = results.at(-1)!;
  const accepted = results.slice(0, -1).filter((r) => r.status === 200).length;
  const view = await send(a, owner, "GET", `/v1/tasks/${task.id}`);
  assert.equal(view.body.acceptedCount, accepted);
  assert.ok(view.body.acceptedCount <= view.body.maxPeople);
  if (lowered.status === 200) assert.ok(accepted <= 2, `lowered to 2 yet ${accepted} accepted`);
  else assert.equal(lowered.body.code, "INVALID_TRANSITION");
  assert.deepEqual(
    results.slice(0, -1).filter((r) => r.status !== 200).map((r) => r.body.code).sort(),
    Array(8 - accepted).fill("TASK_FULL"),
  );
  await assertCountsAgree(a.kv);
});

Deno.test("rule: acceptedCount equals the accepted applications after any sequence of moves", async () => {
  await using fleet = await sharedInstances(2, {
    settings: { RATE_LIMIT_PER_HOUR: "100000" },
  });
  const [a, b] = fleet.list;
  const rnd = seededRandom(1818);
  const pick = <T>(items: T[]): T => items[Math.floor(rnd() * items.length)];
  const owners = [await signUp(a), await signUp(a)];
  const workers = await Promise.all(Array.from({ length: 6 }, () => signUp(a)));
  const gone = new Set<string>();
  const taskList: { id: string; owner: User }[] = [];
  for (let i = 0; i < 4; i++) {
    const owner = owners[i % 2];
    taskList.push({ id: (await postTask(a, owner.token, { maxPeople: 1 + (i % 3) })).id, owner });
  }
  const apps: { id: string; task: { id: string; owner: User }; worker: User }[] = [];
  for (let round = 0; round < 30; round++) {
    // A few moves at once, through both handles.
    await Promise.all(Array.from({ length: 4 }, async () => {
      const svc = pick([a, b]);
      const move = rnd();
      const live = workers.filter((w) => !gone.has(w.id));
      if (move < 0.35 || apps.length === 0) {
        const task = pick(taskList);
        const worker = pick(live);
        const res = await send(svc, worker, "POST", `/v1/tasks/${task.id}/applications`, {
          message: "me",
        });
        if (res.status === 201) apps.push({ id: res.body.id, task, worker });
      } else if (move < 0.75) {
        const app = pick(apps);
        await send(svc, app.task.owner, "PATCH", `/v1/applications/${app.id}`, {
          status: rnd() < 0.7 ? "accepted" : "declined",
        });
      } else if (move < 0.95) {
        const app = pick(apps);
        if (!gone.has(app.worker.id)) {
          await send(svc, app.worker, "PATCH", `/v1/applications/${app.id}`, {
            status: "withdrawn",
          });
        }
      } else if (live.length > 3) {
        const worker = pick(live);
        gone.add(worker.id);
        await send(svc, worker, "DELETE", `/v1/users/${worker.id}`);
        await purgeUser({ kv: svc.kv, now: svc.deps.now }, { userId: worker.id });
      }
    }));
    await assertCountsAgree(a.kv);
  }
  const markers = [];
  for await (const entry of a.kv.list({ prefix: ["applications_active"] })) markers.push(entry);
  for (const entry of markers) {
    const app = (await a.kv.get<ApplicationRecord>(applications.record(entry.value as string)))
      .value!;
    assert.ok(app.status === "pending" || app.status === "accepted", "markers are active only");
    assert.ok(!gone.has(app.applicantId), "a purged account keeps no active application");
  }
  await assertTaskIndexesConsistent(a.kv);
});
