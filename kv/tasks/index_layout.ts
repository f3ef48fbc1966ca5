/**
 * The task index layout a store was written in, and its offline rebuild: index entries and
 * counters are derived data, so a store written by an earlier layout is brought up to date by
 * rewriting them from the task records (`deno task reindex`, with the service stopped).
 */
import { commit } from "../commit.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { explore, meta, tasks } from "../keyspace.ts";
import {
  keyBytes,
  TASK_COUNTER_ROOTS,
  TASK_INDEX_ROOTS,
  writeTaskTransition,
} from "./task_indexes.ts";

/**
 * Bumped with every change to what `taskIndexEntries` or `taskCounterKeys` produce; what each
 * layout changed is in bench/results/history/index_layout.md.
 */
export const INDEX_LAYOUT = 17;

/** Indexes of earlier layouts that the current one no longer writes: the rebuild removes them. */
const RETIRED_ROOTS: readonly Deno.KvKey[] = [
  explore.byWordZoneRoot(),
  explore.byWordOldRoot(),
  explore.byPointOldRoot(),
];

export interface LayoutCheck {
  /** The layout the store says it holds; null when it never said (written before the mark). */
  stored: number | null;
  current: boolean;
}

/**
 * On opening a store: one without task records is marked with the current layout (nothing of
 * an older one can be in it); one with records is current only if its mark says so.
 */
export async function checkIndexLayout(kv: Deno.Kv): Promise<LayoutCheck> {
  const mark = await kv.get<number>(meta.indexLayout());
  if (mark.value === INDEX_LAYOUT) return { stored: mark.value, current: true };
  for await (const _ of kv.list({ prefix: tasks.recordPrefix() }, { limit: 1 })) {
    return { stored: mark.value, current: false };
  }
  // Checked against the mark as read, so that a concurrent reindex's mark is not overwritten.
  await commit(kv.atomic().check(mark).set(meta.indexLayout(), INDEX_LAYOUT));
  return { stored: INDEX_LAYOUT, current: true };
}

// Deno KV refuses an atomic over 1000 mutations or 80 KiB of keys; deletions stay well under.
const MAX_DELETES = 500;
const MAX_DELETE_KEY_BYTES = 48 * 1024;

export interface RebuildReport {
  /** Index entries and counters removed before the rewrite. */
  removed: number;
  /** Task records whose entries and counters were written again. */
  records: number;
}

/**
 * Removes every task index entry and counter, writes them again from the records through the
 * same `writeTaskTransition` every task write uses, then marks the store current. Offline: a
 * task written meanwhile could lose its entries, and readers would see half-built indexes.
 */
export async function rebuildTaskIndexes(
  kv: Deno.Kv,
  progress: (done: RebuildReport) => void = () => {},
): Promise<RebuildReport> {
  const report: RebuildReport = { removed: 0, records: 0 };
  const prefixes = [...TASK_INDEX_ROOTS, ...TASK_COUNTER_ROOTS].map((root) => [root]);
  for (const prefix of [...prefixes, ...RETIRED_ROOTS]) {
    let op = kv.atomic();
    let count = 0;
    let size = 0;
    for await (const entry of kv.list({ prefix }, { batchSize: MAX_DELETES })) {
      op.delete(entry.key);
      count++;
      size += keyBytes(entry.key);
      if (count === MAX_DELETES || size > MAX_DELETE_KEY_BYTES) {
        await commitOrThrow(op);
        report.removed += count;
        op = kv.atomic();
        count = 0;
        size = 0;
      }
    }
    if (count > 0) await commitOrThrow(op);
    report.removed += count;
  }
  progress(report);
  for await (const entry of kv.list<TaskRecord>({ prefix: tasks.recordPrefix() })) {
    // Each record with its own entries and counters, counters summed from zero.
    const op = kv.atomic().check(entry);
    writeTaskTransition(op, null, entry.value);
    await commitOrThrow(op);
    report.records++;
    if (report.records % 10_000 === 0) progress(report);
  }
  await commit(kv.atomic().set(meta.indexLayout(), INDEX_LAYOUT));
  progress(report);
  return report;
}

async function commitOrThrow(op: Deno.AtomicOperation): Promise<void> {
  const result = await commit(op);
  if (!result.ok) throw new Error("the store changed during the rebuild; stop the service first");
}
