/**
 * Reads the KV store directly and checks every task index entry and counter against the task
 * records, generically over taskIndexEntries and taskCounterKeys, so every index they ever
 * produce (explore's included) is covered.
 */
import assert from "node:assert/strict";
import type { TaskRecord } from "../domain/task.ts";
import {
  keyId,
  TASK_COUNTER_ROOTS,
  TASK_INDEX_ROOTS,
  taskCounterKeys,
  taskIndexEntries,
} from "../kv/task_indexes.ts";

/** Counts of what was checked, for assertions that the check saw something. */
export interface ConsistencyReport {
  records: number;
  liveRecords: number;
  indexEntries: number;
  counters: number;
}

/** Fails when any index entry or counter disagrees with the records. */
export async function assertTaskIndexesConsistent(kv: Deno.Kv): Promise<ConsistencyReport> {
  const expected = new Map<string, { key: Deno.KvKey; value: unknown }>();
  const expectedCounts = new Map<string, bigint>();
  let records = 0;
  let liveRecords = 0;
  for await (const entry of kv.list<TaskRecord>({ prefix: ["tasks"] })) {
    const task = entry.value;
    records++;
    assert.equal(entry.key[1], task.id, "a record is keyed by its id");
    if (task.deletedAt === null) liveRecords++;
    for (const index of taskIndexEntries(task)) {
      assert.ok(
        TASK_INDEX_ROOTS.includes(String(index.key[0])),
        `index ${String(index.key[0])} is listed in TASK_INDEX_ROOTS`,
      );
      const id = keyId(index.key);
      assert.ok(!expected.has(id), `two index entries share the key ${id}`);
      expected.set(id, index);
    }
    for (const key of taskCounterKeys(task)) {
      assert.ok(TASK_COUNTER_ROOTS.includes(String(key[0])), `counter ${String(key[0])} listed`);
      expectedCounts.set(keyId(key), (expectedCounts.get(keyId(key)) ?? 0n) + 1n);
    }
  }

  let indexEntries = 0;
  for (const root of TASK_INDEX_ROOTS) {
    for await (const entry of kv.list({ prefix: [root] })) {
      const id = keyId(entry.key);
      const want = expected.get(id);
      assert.ok(want, `stale index entry with no live record: ${id}`);
      assert.deepEqual(entry.value, want.value, `index entry ${id} carries the record's values`);
      expected.delete(id);
      indexEntries++;
    }
  }
  assert.deepEqual([...expected.keys()], [], "every index entry of every live record exists");

  let counters = 0;
  for (const root of TASK_COUNTER_ROOTS) {
    for await (const entry of kv.list<Deno.KvU64>({ prefix: [root] })) {
      const id = keyId(entry.key);
      assert.equal(entry.value.value, expectedCounts.get(id) ?? 0n, `counter ${id}`);
      expectedCounts.delete(id);
      counters++;
    }
  }
  assert.deepEqual([...expectedCounts.keys()], [], "every counted counter exists");
  return { records, liveRecords, indexEntries, counters };
}
