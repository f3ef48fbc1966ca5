/**
 * Reviews are exact across processes (docs/contract.md sections 12 and 16): two `main.ts`
 * processes on one store, the same review sent to both at once gives exactly one; both
 * directions at once show both, each counted once in its reviewee's rating.
 */
import assert from "node:assert/strict";
import { call, fleetSignUp, startFleet } from "../processes/fleet.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function me(base: string, token: string): Promise<string> {
  const res = await call(`${base}/v1/users/me`, { headers: bearer(token) });
  assert.equal(res.status, 200);
  return res.body.id;
}

/** A completed task of a new owner with `count` accepted applicants, through the fleet. */
async function completedTask(fleet: { base(i: number): string }, count: number) {
  const owner = await fleetSignUp(fleet.base(0), `owner-${crypto.randomUUID()}@example.com`);
  const ownerId = await me(fleet.base(0), owner);
  const created = await call(`${fleet.base(0)}/api/v1/tasks`, {
    method: "POST",
    headers: bearer(owner),
    json: taskBody({ maxPeople: count }),
  });
  const taskId = created.body.id;
  const people: { token: string; id: string }[] = [];
  for (let i = 0; i < count; i++) {
    const token = await fleetSignUp(fleet.base(i), `p${i}-${crypto.randomUUID()}@example.com`);
    const applied = await call(`${fleet.base(i)}/api/v1/tasks/${taskId}/applications`, {
      method: "POST",
      headers: bearer(token),
      json: { message: "Me" },
    });
    const accepted = await call(`${fleet.base(i + 1)}/api/v1/applications/${applied.body.id}`, {
      method: "PATCH",
      headers: bearer(owner),
      json: { status: "accepted" },
    });
    assert.equal(accepted.status, 200);
    people.push({ token, id: await me(fleet.base(i), token) });
  }
  const done = await call(`${fleet.base(1)}/api/v1/tasks/${taskId}`, {
    method: "PATCH",
    headers: bearer(owner),
    json: { status: "completed" },
  });
  assert.equal(done.status, 200);
  const post = (i: number, token: string, revieweeId: string, rating: number) =>
    call(`${fleet.base(i)}/api/v1/tasks/${taskId}/reviews`, {
      method: "POST",
      headers: bearer(token),
      json: { revieweeId, rating },
    });
  return { owner, ownerId, people, post };
}

Deno.test("simultaneous reviews of one pair across two processes: exactly one", async () => {
  await using fleet = await startFleet(2, { RATE_LIMIT_PER_HOUR: "100000" });
  const { owner, people: [ann], post } = await completedTask(fleet, 1);
  const same = await Promise.all(Array.from({ length: 16 }, (_, i) => post(i, owner, ann.id, 4)));
  assert.deepEqual(same.map((r) => r.status).sort(), [201, ...Array(15).fill(409)]);
  assert.deepEqual(
    same.filter((r) => r.status === 409).map((r) => r.body.code),
    Array(15).fill("ALREADY_REVIEWED"),
  );
  const mine = await call(`${fleet.base(1)}/api/v1/reviews/me`, { headers: bearer(owner) });
  assert.equal(mine.body.length, 1);
});

Deno.test("both directions of many pairs at once across two processes: every pair shown, each review counted once", async () => {
  await using fleet = await startFleet(2, { RATE_LIMIT_PER_HOUR: "100000" });
  const pairs = 12;
  const { owner, ownerId, people, post } = await completedTask(fleet, pairs);
  const sent = await Promise.all(
    people.flatMap((person, i) => [
      post(i, owner, person.id, 1 + (i % 5)),
      post(i + 1, person.token, ownerId, 5 - (i % 5)),
    ]),
  );
  assert.deepEqual(sent.map((r) => r.status), Array(pairs * 2).fill(201));
  for (const [i, person] of people.entries()) {
    const mine = await call(`${fleet.base(i)}/api/v1/reviews/me`, {
      headers: bearer(person.token),
    });
    assert.deepEqual(mine.body.map((r: { visible: boolean }) => r.visible), [true], `pair ${i}`);
    const rating = await call(`${fleet.base(i + 1)}/v1/users/${person.id}`, {
      headers: bearer(person.token),
    });
    assert.deepEqual(rating.body.rating, { average: 1 + (i % 5), count: 1 });
  }
  const ownerRating = await call(`${fleet.base(0)}/v1/users/me`, { headers: bearer(owner) });
  const sum = people.reduce((total, _, i) => total + 5 - (i % 5), 0);
  assert.deepEqual(ownerRating.body.rating, {
    average: Math.round((sum / pairs) * 100) / 100,
    count: pairs,
  });
  const about = await call(`${fleet.base(1)}/api/v1/users/${ownerId}/reviews?limit=50`);
  assert.equal(about.body.length, pairs);
});
