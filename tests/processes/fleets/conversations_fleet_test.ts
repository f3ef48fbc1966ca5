/**
 * Conversations across processes (docs/contract.md sections 12 and 18): three `main.ts` processes
 * on one store, both parties posting at once through all of them past their limit; every message
 * taken is listed exactly once, in id order, each sender's limit holds exactly, and `unread` counts
 * each of the counterpart's messages once, with read markers racing the posts.
 */
import assert from "node:assert/strict";
import { call, fleetSignUp, startFleet } from "../fleet.ts";
import { taskBody } from "../../tasks/task_fixtures.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const ATTEMPTS = 26;
const LIMIT = 20;

Deno.test("both parties posting through three processes at once: each message listed and counted once", async () => {
  await using fleet = await startFleet(3, { RATE_LIMIT_PER_HOUR: "100000" });
  const owner = await fleetSignUp(fleet.base(0), `owner-${crypto.randomUUID()}@example.com`);
  const applicant = await fleetSignUp(fleet.base(1), `app-${crypto.randomUUID()}@example.com`);
  const task = await call(`${fleet.base(0)}/api/v1/tasks`, {
    method: "POST",
    headers: bearer(owner),
    json: taskBody(),
  });
  const applied = await call(`${fleet.base(1)}/api/v1/tasks/${task.body.id}/applications`, {
    method: "POST",
    headers: bearer(applicant),
    json: { message: "Me" },
  });
  assert.equal(applied.status, 201);
  const path = `/api/v1/applications/${applied.body.id}`;
  const first = await call(`${fleet.base(2)}${path}/messages`, {
    method: "POST",
    headers: bearer(owner),
    json: { body: "first" },
  });
  assert.equal(first.status, 201);

  // The applicant marks read up to the owner's first message on every process while posts race.
  const posts = [owner, applicant].flatMap((token, who) =>
    Array.from({ length: ATTEMPTS }, (_, i) =>
      call(`${fleet.base(i + who)}${path}/messages`, {
        method: "POST",
        headers: bearer(token),
        json: { body: `${who ? "applicant" : "owner"} ${i}` },
      }))
  );
  const marks = Array.from({ length: 6 }, (_, i) =>
    call(`${fleet.base(i)}${path}/read`, {
      method: "PUT",
      headers: bearer(applicant),
      json: { upTo: first.body.id },
    }));
  const answers = await Promise.all(posts);
  for (const mark of await Promise.all(marks)) assert.equal(mark.status, 200, JSON.stringify(mark));
  const statuses = answers.map((a) => a.status);
  assert.ok(statuses.every((s) => s === 201 || s === 429), JSON.stringify(statuses));
  const taken = answers.filter((a) => a.status === 201).map((a) => a.body);
  const ownerTaken = taken.filter((m) => m.body.startsWith("owner"));
  assert.equal(ownerTaken.length, LIMIT - 1, "the owner's first message counted too");
  assert.equal(taken.length - ownerTaken.length, LIMIT, "the applicant's limit, exactly");

  const listed: { id: string; senderId: string }[] = [];
  let cursor = "";
  do {
    const page = await call(
      `${fleet.base(listed.length)}${path}/messages?limit=7&cursor=${cursor}`,
      {
        headers: bearer(applicant),
      },
    );
    assert.equal(page.status, 200);
    listed.push(...page.body);
    cursor = page.headers.get("X-Next-Cursor") ?? "";
  } while (cursor);
  const ids = listed.map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length, "no message listed twice");
  assert.deepEqual(
    [...ids].sort(),
    [first.body.id, ...taken.map((m) => m.id)].sort(),
    "every message taken is listed",
  );
  assert.deepEqual(ids, [...ids].sort().reverse(), "newest first by id");

  const ownerId = first.body.senderId;
  const fromOwner = listed.filter((m) => m.senderId === ownerId).length;
  const conversations = await call(`${fleet.base(0)}/api/v1/conversations`, {
    headers: bearer(applicant),
  });
  assert.equal(conversations.body[0].unread, fromOwner - 1, "all but the first owner message");
  const mine = await call(`${fleet.base(1)}/api/v1/conversations`, { headers: bearer(owner) });
  assert.equal(mine.body[0].unread, LIMIT);
  assert.equal(mine.body[0].lastMessage.id, ids[0]);
  // Marking up to the 10th newest message leaves the owner's messages after it unread.
  const upTo = listed[9];
  const after = listed.slice(0, 9).filter((m) => m.senderId === ownerId).length;
  const marked = await call(`${fleet.base(2)}${path}/read`, {
    method: "PUT",
    headers: bearer(applicant),
    json: { upTo: upTo.id },
  });
  assert.deepEqual(marked.body, { unread: after });
});
