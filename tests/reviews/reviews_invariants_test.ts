/**
 * Ratings stay exact (docs/contract.md section 16): after random interleavings of reviews, reveals
 * (reviews back, windows closing as the injected clock moves) and account purges, some of them
 * at once, the stored sums of every user equal a recount of the visible review records; no pair
 * is left with both reviews hidden; the listings show exactly the visible reviews. Seeded:
 * `REVIEWS_SEED=n` replays one run.
 */
import assert from "node:assert/strict";
import type { ReviewRecord } from "../../domain/reviews/review.ts";
import { REVIEW_WINDOW_MS } from "../../domain/reviews/review.ts";
import { reviews } from "../../kv/keyspace.ts";
import { readRating } from "../../kv/reviews/ratings.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { type WorkingService, workingService } from "../webhooks/webhook_fixtures.ts";
import { acceptApplicant, complete, review, send, type User } from "./fixtures.ts";

const DAY = 86_400_000;
const SEEDS = Deno.env.get("REVIEWS_SEED")
  ? [Number(Deno.env.get("REVIEWS_SEED"))]
  : [22, 2201, 31337];

/** Every review record in the store. */
async function allReviews(kv: Deno.Kv): Promise<ReviewRecord[]> {
  const found: ReviewRecord[] = [];
  for await (const entry of kv.list<ReviewRecord>({ prefix: ["reviews"] })) found.push(entry.value);
  return found;
}

/** Checks the stored aggregates, indexes and listings against a recount of the records. */
async function assertExact(svc: WorkingService, users: User[], seed: number) {
  const records = await allReviews(svc.kv);
  const byKey = new Map(records.map((r) => [`${r.taskId}/${r.reviewerId}/${r.revieweeId}`, r]));
  for (const r of records) {
    const back = byKey.get(`${r.taskId}/${r.revieweeId}/${r.reviewerId}`);
    assert.ok(
      r.visibleAt !== null || !back || back.visibleAt !== null,
      `seed ${seed}: a pair has both reviews hidden`,
    );
    if (back) {
      assert.equal(r.visibleAt === null, back.visibleAt === null, `seed ${seed}: shown together`);
    }
  }
  for (const user of users) {
    const visible = records.filter((r) => r.revieweeId === user.id && r.visibleAt !== null);
    const sum = visible.reduce((total, r) => total + r.rating, 0);
    const expected = {
      average: visible.length ? Math.round((sum / visible.length) * 100) / 100 : null,
      count: visible.length,
    };
    assert.deepEqual(await readRating(svc.kv, user.id), expected, `seed ${seed}: ${user.id}`);
    const indexed: string[] = [];
    for await (const e of svc.kv.list({ prefix: reviews.byRevieweePrefix(user.id) })) {
      indexed.push(String(e.key.at(-1)));
    }
    assert.deepEqual(indexed.sort(), visible.map((r) => r.orderKey).sort(), `seed ${seed}: index`);
  }
}

Deno.test("rule: every rating equals a recount of the visible reviews, whatever the interleaving", async (t) => {
  for (const seed of SEEDS) {
    await t.step(`seed ${seed}`, async () => {
      await using svc = await workingService({ settings: { SESSION_TTL_HOURS: "8760" } });
      const rnd = seededRandom(seed);
      const pick = <T>(items: T[]): T => items[Math.floor(rnd() * items.length)];
      let clock = Date.now();
      svc.deps.now = () => clock;
      const users = await Promise.all(Array.from({ length: 8 }, () => signUp(svc)));
      // Accounts whose deletion was sent, and those whose deletion was answered.
      const deleting = new Set<string>();
      const gone = new Set<string>();
      const live = () => users.filter((u) => !deleting.has(u.id));
      const tasks: { id: string; owner: User; people: User[] }[] = [];
      // People of a task being set up: a purge meanwhile would end the setup, not test anything.
      const busy = new Set<string>();

      const newTask = async () => {
        const owner = pick(live());
        const others = live().filter((u) => u.id !== owner.id);
        const count = 1 + Math.floor(rnd() * 3);
        const people = others.sort(() => rnd() - 0.5).slice(0, count);
        for (const u of [owner, ...people]) busy.add(u.id);
        const task = await postTask(svc, owner.token, { maxPeople: people.length });
        for (const applicant of people) {
          await acceptApplicant(svc, { owner, applicant, taskId: task.id });
        }
        await complete(svc, owner, task.id);
        for (const u of [owner, ...people]) busy.delete(u.id);
        tasks.push({ id: task.id, owner, people });
      };
      const reviewOnce = async (pair?: { task: typeof tasks[number]; from: User; to: User }) => {
        const task = pair?.task ?? pick(tasks);
        const person = pick(task.people);
        const [from, to] = pair
          ? [pair.from, pair.to]
          : rnd() < 0.5
          ? [task.owner, person]
          : [person, task.owner];
        const wasGone = gone.has(from.id);
        const res = await review(svc, from, {
          taskId: task.id,
          revieweeId: to.id,
          rating: 1 + Math.floor(rnd() * 5),
        });
        // A deletion of the caller under way may end the call: 401 once its session is gone.
        const allowed = wasGone
          ? [401]
          : deleting.has(from.id)
          ? [201, 401, 404, 409]
          : [201, 404, 409];
        assert.ok(allowed.includes(res.status), `seed ${seed}: ${JSON.stringify(res.body)}`);
      };
      const purge = async () => {
        const candidates = live().filter((u) => !busy.has(u.id));
        if (live().length <= 4 || candidates.length === 0) return;
        const user = pick(candidates);
        deleting.add(user.id);
        const res = await send(svc, `/v1/users/${user.id}`, {
          method: "DELETE",
          token: user.token,
        });
        assert.equal(res.status, 200);
        gone.add(user.id);
      };

      for (let i = 0; i < 4; i++) await newTask();
      for (let round = 0; round < 25; round++) {
        // A few moves at once, with the job runner working beside them.
        await Promise.all(Array.from({ length: 3 }, async () => {
          const move = rnd();
          if (move < 0.35) await reviewOnce();
          else if (move < 0.6) {
            // Both directions of one pair at once.
            const task = pick(tasks);
            const person = pick(task.people);
            await Promise.all([
              reviewOnce({ task, from: task.owner, to: person }),
              reviewOnce({ task, from: person, to: task.owner }),
            ]);
          } else if (move < 0.7) await purge();
          else if (move < 0.8 && live().length > 1) await newTask();
          else {
            clock += Math.floor(rnd() * 5 * DAY);
            await svc.jobs.drain();
          }
        }));
        if (round % 5 === 4) {
          await svc.jobs.drain();
          await assertExact(svc, users, seed);
        }
      }
      clock += REVIEW_WINDOW_MS + DAY; // every window closes
      await svc.jobs.drain();
      await assertExact(svc, users, seed);
      const records = await allReviews(svc.kv);
      assert.ok(records.length > 0, `seed ${seed}: reviews were written`);
      assert.ok(records.every((r) => r.visibleAt !== null), `seed ${seed}: all shown at the end`);
      for (const user of live()) {
        const res = await send(svc, `/v1/users/${user.id}/reviews?limit=50`);
        const about = records.filter((r) => r.revieweeId === user.id);
        assert.equal(res.body.length, about.length, `seed ${seed}: listing of ${user.id}`);
        for (const item of res.body) {
          const purged = gone.has(about.find((r) => r.id === item.id)!.reviewerId);
          assert.equal(item.reviewerId === null, purged, `seed ${seed}: no profile link once gone`);
        }
        const profile = await send(svc, `/v1/users/${user.id}`, { token: user.token });
        assert.deepEqual(profile.body.rating, await readRating(svc.kv, user.id));
      }
    });
  }
});
