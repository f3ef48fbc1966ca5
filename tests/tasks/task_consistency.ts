/**
 * Reads the KV store directly and checks every task index entry and counter against the task
 * records: `deno task reindex --check`'s own pass (kv/tasks/index_check.ts), as an assertion.
 */
import assert from "node:assert/strict";
import { checkTaskIndexes } from "../../kv/tasks/index_check.ts";

/** Counts of what was checked, for assertions that the check saw something. */
export interface ConsistencyReport {
  records: number;
  liveRecords: number;
  indexEntries: number;
  counters: number;
}

/** Fails when any index entry or counter disagrees with the records. */
export async function assertTaskIndexesConsistent(kv: Deno.Kv): Promise<ConsistencyReport> {
  const { problems, problemCount: _, ...counts } = await checkTaskIndexes(kv);
  assert.deepEqual(problems, [], problems.join("\n"));
  return counts;
}
