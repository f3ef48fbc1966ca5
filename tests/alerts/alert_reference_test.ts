/**
 * The reference test of matching (docs/contract.md section 17): seeded random alerts and random
 * tasks (explore's own test data, with its hard places: clusters, the antimeridian, the poles,
 * radius circles of every size, accents); `task.matched` must reach a real receiver exactly for
 * the pairs where explore itself, run with the alert's filters, lists the task (and the budget
 * reaches minBudget, and the task is not the owner's). Replay a failure with ALERT_SEED=<seed>.
 */
import assert from "node:assert/strict";
import { alertCriteria, AlertFilters, narrowsByPlaceOrWord } from "../../domain/alerts/alert.ts";
import type { ExploreFilters, ExploreItem } from "../../domain/explore.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { matchTask } from "../../kv/alerts/matching.ts";
import { createTask } from "../../kv/tasks/tasks.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { allPages, generateFilters, generateTasks } from "../explore/explore_fixtures.ts";
import { signUp } from "../helpers.ts";
import { startReceiver } from "../webhooks/webhook_receiver.ts";
import { addEndpoint, workingService } from "../webhooks/webhook_fixtures.ts";
import { postAlert } from "./alert_fixtures.ts";

const SEED = Number(Deno.env.get("ALERT_SEED") ?? Date.now() % 100_000);
const OWNERS = 6;
const ALERTS_EACH = 5;
const TASKS = 300;

/** An alert's filters as a client sends them, from explore's random filters. */
function alertFiltersOf(f: ExploreFilters, rnd: () => number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (f.search.length > 0) out.search = f.search.join(" ");
  if (f.payment) out.payment = f.payment;
  if (f.geo) {
    Object.assign(out, { latitude: f.geo.lat, longitude: f.geo.lon, radiusKm: f.geo.radiusKm });
  }
  if (f.cityName !== undefined) out.cityName = f.cityName;
  if (f.regionName !== undefined) out.regionName = f.regionName;
  if (f.countryCode !== undefined) out.countryCode = f.countryCode;
  if (rnd() < 0.25 || !AlertFilters.safeParse(out).success) {
    out.minBudget = [0, 50, 100.5, 250][Math.floor(rnd() * 4)];
  }
  return out;
}

Deno.test(`task.matched goes exactly where explore lists the task (ALERT_SEED=${SEED})`, async () => {
  const rnd = seededRandom(SEED);
  await using svc = await workingService();
  await using receiver = startReceiver();
  const users: { id: string; token: string }[] = [];
  for (let i = 0; i < OWNERS + 2; i++) users.push(await signUp(svc));
  const ownerOfHook = new Map<string, string>();
  for (const user of users.slice(0, OWNERS)) {
    const hook = await addEndpoint(svc, user.token, {
      url: receiver.url,
      events: ["task.matched"],
    });
    receiver.secrets.push(hook.secret);
    ownerOfHook.set(hook.secret, user.id);
  }
  const alerts: { id: string; userId: string; filters: Record<string, unknown> }[] = [];
  for (const user of users.slice(0, OWNERS)) {
    for (let i = 0; i < ALERTS_EACH; i++) {
      // Only alerts the API takes: those that narrow by place or word.
      let filters: Record<string, unknown>;
      let draw = 0;
      do {
        filters = alertFiltersOf(generateFilters(SEED * 31 + alerts.length * 97 + draw++), rnd);
      } while (!narrowsByPlaceOrWord(AlertFilters.parse(filters)));
      const made = await postAlert(svc, user.token, { filters });
      alerts.push({ id: made.id, userId: user.id, filters });
    }
  }
  const tasks: TaskRecord[] = generateTasks(SEED, TASKS).map((t) => ({
    ...t,
    userId: users[Math.floor(rnd() * users.length)].id,
  }));
  for (const task of tasks) await createTask(svc.kv, task);

  // The reference: explore itself, given each alert's filters.
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const expected = new Map<string, ExploreItem>();
  for (const alert of alerts) {
    const { minBudget, ...filters } = alertCriteria(AlertFilters.parse(alert.filters));
    const { items } = await allPages(svc.kv, { filters, limit: 50 });
    for (const item of items) {
      const task = byId.get(item.id)!;
      if (task.userId === alert.userId) continue;
      if (minBudget !== undefined && task.budget < minBudget) continue;
      expected.set(`${alert.id}/${item.id}`, item);
    }
  }
  assert.ok(expected.size > 20, `seed ${SEED}: only ${expected.size} matches; the test is weak`);

  await svc.jobs.drain();
  await receiver.waitFor((r) => r.length >= expected.size);
  await svc.jobs.drain();
  const got = new Map<string, ExploreItem>();
  for (const r of receiver.received) {
    assert.equal(r.event.type, "task.matched");
    assert.equal(r.verifiedWith.length, 1, "signed with the owner's secret");
    const key = `${r.event.data.alertId}/${r.event.data.task.id}`;
    assert.ok(!got.has(key), `seed ${SEED}: ${key} sent twice`);
    got.set(key, r.event.data.task);
    const alert = alerts.find((a) => a.id === r.event.data.alertId)!;
    assert.equal(ownerOfHook.get(r.verifiedWith[0]), alert.userId, "to the owner's endpoint");
  }
  const missing = [...expected.keys()].filter((k) => !got.has(k));
  const extra = [...got.keys()].filter((k) => !expected.has(k));
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, `seed ${SEED}`);
  for (const [key, item] of expected) {
    assert.deepEqual(got.get(key), JSON.parse(JSON.stringify(item)), `${key} as explore lists it`);
  }

  // Every job run again: nothing is sent twice.
  for (const task of tasks) await matchTask({ kv: svc.kv, now: svc.deps.now }, { taskId: task.id });
  await svc.jobs.drain();
  assert.equal(receiver.received.length, expected.size);
});
