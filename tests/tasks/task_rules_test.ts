import assert from "node:assert/strict";
import {
  applyPatch,
  assertOwner,
  canSee,
  matchesTerms,
  newTask,
  searchTerms,
  TaskCreate,
  type TaskRecord,
} from "../../domain/tasks/task.ts";
import { orderKey } from "../../kv/order_key.ts";
import { isUlid } from "../../kv/cursor.ts";
import { taskBody } from "./task_fixtures.ts";

function task(overrides: Partial<TaskRecord> = {}): TaskRecord {
  const id = crypto.randomUUID();
  const base = newTask(
    TaskCreate.parse(taskBody()),
    { id, userId: "owner", orderKey: orderKey(0, id) },
    "2030-01-01T00:00:00.000Z",
  );
  return { ...base, ...overrides };
}

Deno.test("order keys sort exactly as (createdAt, id)", async (t) => {
  await t.step("an order key is a ULID", () => {
    assert.ok(isUlid(orderKey(Date.now(), crypto.randomUUID())));
  });

  await t.step(
    "for 2,000 tasks over 5 milliseconds, key order equals (createdAt, id) order",
    () => {
      const rows = Array.from({ length: 2000 }, (_, i) => {
        const id = crypto.randomUUID();
        const at = 1_800_000_000_000 + (i % 5);
        return { id, at, key: orderKey(at, id) };
      });
      const byKey = [...rows].sort((a, b) => a.key < b.key ? -1 : 1).map((r) => r.id);
      const byTimeThenId = [...rows]
        .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
        .map((r) => r.id);
      assert.deepEqual(byKey, byTimeThenId);
    },
  );
});

Deno.test("visibility and transition rules", async (t) => {
  await t.step("a published task is seen by anyone", () => {
    assert.ok(canSee(task(), null));
    assert.ok(canSee(task(), "someone"));
  });

  await t.step("a completed task is seen by its creator only", () => {
    const done = task({ status: "completed" });
    assert.ok(canSee(done, "owner"));
    assert.ok(!canSee(done, "someone"));
    assert.ok(!canSee(done, null));
  });

  await t.step("a deleted task is seen by nobody", () => {
    assert.ok(!canSee(task({ deletedAt: "2030-01-02T00:00:00.000Z" }), "owner"));
  });

  await t.step("changing another's visible task is FORBIDDEN, an invisible one NOT_FOUND", () => {
    assert.throws(() => assertOwner(task(), "someone"), { code: "FORBIDDEN" });
    assert.throws(
      () => assertOwner(task({ status: "completed" }), "someone"),
      { code: "NOT_FOUND" },
    );
    assert.throws(() => assertOwner(null, "owner"), { code: "NOT_FOUND" });
  });

  await t.step("completing sets status and completedAt; completed is final", () => {
    const done = applyPatch(task(), { status: "completed" }, "2030-01-02T00:00:00.000Z");
    assert.equal(done.status, "completed");
    assert.equal(done.completedAt, "2030-01-02T00:00:00.000Z");
    assert.throws(() => applyPatch(done, { title: "x" }, "2030-01-03T00:00:00.000Z"), {
      code: "INVALID_TRANSITION",
    });
  });

  await t.step("an empty patch changes nothing, not even updatedAt", () => {
    const before = task();
    assert.equal(applyPatch(before, {}, "2031-01-01T00:00:00.000Z"), before);
  });
});

Deno.test("search terms match by word prefix, ignoring case and accents", async (t) => {
  const terms = searchTerms({ title: "Plomberie à Paris", description: "Café offert" });

  await t.step("every wanted word must prefix some term", () => {
    assert.ok(matchesTerms(["plomb", "cafe"], terms));
    assert.ok(!matchesTerms(["plomb", "the"], terms));
  });

  await t.step("no wanted words match everything", () => {
    assert.ok(matchesTerms([], terms));
  });
});
