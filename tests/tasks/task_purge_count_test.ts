/**
 * The account purge's task count (kv/tasks/tasks.ts `deleteUserTasks`) when a round of its
 * check-and-retry loop loses to a concurrent write of the same task: the count is the tasks the
 * purge deleted, so a round run again is counted once, and a task someone else deleted is not.
 */
import assert from "node:assert/strict";
import { setup, signUp } from "../helpers.ts";
import { callTask, postTask } from "./task_fixtures.ts";
import { deleteUserTasks } from "../../kv/tasks/tasks.ts";
import { tasks } from "../../kv/keyspace.ts";

/**
 * A view of `kv` whose first read of `key` lets `write` (a real write through the service) land
 * after the read and before the reader commits: the reader's check then fails, deterministically.
 */
function racing(kv: Deno.Kv, key: Deno.KvKey, write: () => Promise<void>): Deno.Kv {
  let raced = false;
  const hits = (keys: readonly Deno.KvKey[]) =>
    !raced && keys.some((k) => JSON.stringify(k) === JSON.stringify(key));
  return new Proxy(kv, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      if (name === "get" || name === "getMany") {
        return async (keys: Deno.KvKey | Deno.KvKey[], ...rest: unknown[]) => {
          const read = await original.call(target, keys, ...rest);
          const many = name === "getMany" ? keys as Deno.KvKey[] : [keys as Deno.KvKey];
          if (hits(many)) {
            raced = true;
            await write();
          }
          return read;
        };
      }
      return original.bind(target);
    },
  });
}

Deno.test("a purge round run again after a concurrent write counts its task once", async (t) => {
  await using svc = await setup();
  const owner = await signUp(svc);
  // A purge time no request of the test can stamp: the owner's own delete is told apart by it.
  const at = "2001-01-01T00:00:00.000Z";

  await t.step("an edit between the read and the commit: both tasks count once", async () => {
    const [first, second] = [await postTask(svc, owner.token), await postTask(svc, owner.token)];
    let edits = 0;
    const kv = racing(svc.kv, tasks.record(first.id), async () => {
      const json = { title: "Edited meanwhile" };
      assert.equal(
        await callTask(svc, { token: owner.token, method: "PATCH", id: first.id, json }),
        200,
      );
      edits++;
    });
    const deleted = await deleteUserTasks(kv, { userId: owner.id, at });
    assert.equal(edits, 1, "the concurrent edit landed between the purge's read and its commit");
    for (const task of [first, second]) {
      const stored = await svc.kv.get<{ deletedAt: string | null; title: string }>(
        tasks.record(task.id),
      );
      assert.equal(stored.value?.deletedAt, at, task.id);
    }
    assert.equal(deleted, 2, "two tasks deleted, each counted once");
  });

  await t.step("the owner deletes it in between: the purge does not count it", async () => {
    const [first, second] = [await postTask(svc, owner.token), await postTask(svc, owner.token)];
    const kv = racing(svc.kv, tasks.record(first.id), async () => {
      assert.equal(
        await callTask(svc, { token: owner.token, method: "DELETE", id: first.id }),
        200,
      );
    });
    const deleted = await deleteUserTasks(kv, { userId: owner.id, at });
    const mine = await svc.kv.get<{ deletedAt: string | null }>(tasks.record(second.id));
    assert.equal(mine.value?.deletedAt, at);
    const theirs = await svc.kv.get<{ deletedAt: string | null }>(tasks.record(first.id));
    assert.notEqual(theirs.value?.deletedAt, at, "the owner's delete, not the purge's");
    assert.equal(deleted, 1, "only the task the purge deleted");
  });
});
