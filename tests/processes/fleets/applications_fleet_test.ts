/**
 * Acceptance is exact across processes (docs/contract.md sections 12 and 15): two `main.ts` processes on
 * one store, acceptances sent to both at once, never more accepted than maxPeople.
 */
import assert from "node:assert/strict";
import { call, fleetSignUp, startFleet } from "../fleet.ts";
import { taskBody } from "../../tasks/task_fixtures.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

Deno.test("20 concurrent acceptances on a task of maxPeople 3 across two processes: exactly 3 accepted", async () => {
  await using fleet = await startFleet(2, { RATE_LIMIT_PER_HOUR: "100000" });
  const owner = await fleetSignUp(fleet.base(0), `owner-${crypto.randomUUID()}@example.com`);
  const created = await call(`${fleet.base(0)}/api/v1/tasks`, {
    method: "POST",
    headers: bearer(owner),
    json: taskBody({ maxPeople: 3 }),
  });
  assert.equal(created.status, 201);
  const taskId = created.body.id;

  const applications: string[] = [];
  for (let i = 0; i < 20; i++) {
    const token = await fleetSignUp(fleet.base(i), `applicant-${i}-${crypto.randomUUID()}@x.org`);
    const res = await call(`${fleet.base(i)}/api/v1/tasks/${taskId}/applications`, {
      method: "POST",
      headers: bearer(token),
      json: { message: `Applicant ${i}` },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    applications.push(res.body.id);
  }

  const results = await Promise.all(
    applications.map((id, i) =>
      call(`${fleet.base(i)}/api/v1/applications/${id}`, {
        method: "PATCH",
        headers: bearer(owner),
        json: { status: "accepted" },
      })
    ),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 3, JSON.stringify(statuses));
  assert.deepEqual(
    results.filter((r) => r.status !== 200).map((r) => r.body.code),
    Array(17).fill("TASK_FULL"),
  );

  const task = await call(`${fleet.base(1)}/api/v1/tasks/${taskId}`, { headers: bearer(owner) });
  assert.equal(task.body.acceptedCount, 3);
  assert.equal(task.body.spotsLeft, 0);
  const listed = await call(`${fleet.base(1)}/api/v1/tasks/${taskId}/applications?limit=50`, {
    headers: bearer(owner),
  });
  const accepted = listed.body.filter((a: { status: string }) => a.status === "accepted");
  assert.equal(accepted.length, 3);
});

Deno.test("one user applying to one task through both processes at once: one 201, the rest 409 ALREADY_APPLIED", async () => {
  await using fleet = await startFleet(2, { RATE_LIMIT_PER_HOUR: "100000" });
  const owner = await fleetSignUp(fleet.base(0), `owner-${crypto.randomUUID()}@example.com`);
  const applicant = await fleetSignUp(fleet.base(1), `app-${crypto.randomUUID()}@example.com`);
  const created = await call(`${fleet.base(0)}/api/v1/tasks`, {
    method: "POST",
    headers: bearer(owner),
    json: taskBody(),
  });
  const results = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) =>
        call(`${fleet.base(i)}/api/v1/tasks/${created.body.id}/applications`, {
          method: "POST",
          headers: bearer(applicant),
          json: { message: `try ${i}` },
        }),
    ),
  );
  assert.deepEqual(
    results.map((r) => r.status).sort(),
    [201, ...Array(7).fill(409)],
  );
  assert.deepEqual(
    results.filter((r) => r.status === 409).map((r) => r.body.code),
    Array(7).fill("ALREADY_APPLIED"),
  );
});
