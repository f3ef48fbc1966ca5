/**
 * The consistency pass over the task indexes: every index entry and counter checked against the
 * task records, generically over taskIndexEntries and taskCounterKeys (explore's indexes
 * included). Read-only; `deno task reindex --check` and the tests run it.
 */
import { isDeepStrictEqual } from "node:util";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { INDEX_LAYOUT } from "./index_layout.ts";
import { meta, tasks } from "../keyspace.ts";
import { keyId } from "../key_id.ts";
import {
  TASK_COUNTER_ROOTS,
  TASK_INDEX_ROOTS,
  taskCounterKeys,
  taskIndexEntries,
} from "./task_indexes.ts";

export interface IndexCheckReport {
  records: number;
  liveRecords: number;
  indexEntries: number;
  counters: number;
  /** What disagrees with the records, first ones only; empty when the store is consistent. */
  problems: string[];
  /** Problems found in all, past the ones listed. */
  problemCount: number;
}

const LISTED_PROBLEMS = 50;

/** Reads the whole store's task records, indexes and counters and reports every disagreement. */
export async function checkTaskIndexes(kv: Deno.Kv): Promise<IndexCheckReport> {
  const report: IndexCheckReport = {
    records: 0,
    liveRecords: 0,
    indexEntries: 0,
    counters: 0,
    problems: [],
    problemCount: 0,
  };
  const problem = (text: string) => {
    if (report.problemCount++ < LISTED_PROBLEMS) report.problems.push(text);
  };
  const layout = await kv.get<number>(meta.indexLayout());
  if (layout.value !== null && layout.value !== INDEX_LAYOUT) {
    problem(`the store is marked layout ${layout.value}, not ${INDEX_LAYOUT}: run the rebuild`);
  }

  const expected = new Map<string, { key: Deno.KvKey; value: unknown }>();
  const expectedCounts = new Map<string, bigint>();
  for await (const entry of kv.list<TaskRecord>({ prefix: tasks.recordPrefix() })) {
    const task = entry.value;
    report.records++;
    if (entry.key[1] !== task.id) problem(`record ${keyId(entry.key)} holds task ${task.id}`);
    if (task.deletedAt === null) report.liveRecords++;
    for (const index of taskIndexEntries(task)) {
      const id = keyId(index.key);
      if (!TASK_INDEX_ROOTS.includes(String(index.key[0]))) {
        problem(`index ${String(index.key[0])} is not listed in TASK_INDEX_ROOTS`);
      }
      if (expected.has(id)) problem(`two index entries share the key ${id}`);
      expected.set(id, index);
    }
    for (const key of taskCounterKeys(task)) {
      if (!TASK_COUNTER_ROOTS.includes(String(key[0]))) {
        problem(`counter ${String(key[0])} is not listed in TASK_COUNTER_ROOTS`);
      }
      expectedCounts.set(keyId(key), (expectedCounts.get(keyId(key)) ?? 0n) + 1n);
    }
  }

  for (const root of TASK_INDEX_ROOTS) {
    for await (const entry of kv.list({ prefix: [root] })) {
      const id = keyId(entry.key);
      const want = expected.get(id);
      if (!want) problem(`stale index entry with no live record: ${id}`);
      else if (!isDeepStrictEqual(entry.value, want.value)) {
        problem(`index entry ${id} does not carry the record's values`);
      }
      expected.delete(id);
      report.indexEntries++;
    }
  }
  for (const id of expected.keys()) problem(`missing index entry ${id}`);

  for (const root of TASK_COUNTER_ROOTS) {
    for await (const entry of kv.list<Deno.KvU64>({ prefix: [root] })) {
      const id = keyId(entry.key);
      const want = expectedCounts.get(id) ?? 0n;
      const got = entry.value instanceof Deno.KvU64 ? entry.value.value : null;
      if (got !== want) problem(`counter ${id} is ${got}, the records count ${want}`);
      expectedCounts.delete(id);
      report.counters++;
    }
  }
  for (const id of expectedCounts.keys()) problem(`missing counter ${id}`);
  return report;
}
