/**
 * A task's history in KV: each entry is numbered by the task record's own count, set in the
 * atomic of the change it records. Every change that records one rewrites the task record under
 * a check of its versionstamp, so the numbers follow the commits exactly, whichever instance
 * wrote them.
 */
import { type HistoryEntry, synthesizedCreation } from "../../domain/history/task_history.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { taskHistory } from "../keyspace.ts";

/**
 * Adds `entries` to `op` as the next ones of the task's history, and returns `task` (the state
 * the same atomic writes) with its count and last time moved past them. A change timed before it
 * lost a race to another (its time is taken before its atomic's rounds) is dated at the entry
 * before it, so that oldest first stays true of the times too.
 */
export function appendHistory(
  op: Deno.AtomicOperation,
  task: TaskRecord,
  entries: readonly HistoryEntry[],
): TaskRecord {
  if (entries.length === 0) return task;
  let seq = task.historySeq ?? 0;
  let last = task.historyAt ?? "";
  for (const entry of entries) {
    last = entry.at > last ? entry.at : last;
    op.set(taskHistory.entry(task.id, ++seq), { ...entry, at: last });
  }
  return { ...task, historySeq: seq, historyAt: last };
}

/** A page of a history, oldest first, and the position to continue after when more follow. */
export interface HistoryPage {
  items: HistoryEntry[];
  next: number | null;
}

/**
 * One page of `task`'s history after position `after` (null: from the start). A task written
 * before histories existed has no stored `created`: its history starts with one made from the
 * record, at position 0, before the entries stored since.
 */
export async function readHistory(
  kv: Deno.Kv,
  page: { task: TaskRecord; limit: number; after: number | null },
): Promise<HistoryPage> {
  const { task, limit, after } = page;
  const prefix = taskHistory.prefix(task.id);
  const selector = after === null ? { prefix } : { prefix, start: [...prefix, after + 1] };
  const read: { at: number; entry: HistoryEntry }[] = [];
  for await (const e of kv.list<HistoryEntry>(selector, { limit: limit + 1 })) {
    read.push({ at: Number(e.key.at(-1)), entry: e.value });
  }
  if (after === null && read[0]?.entry.type !== "created") {
    read.unshift({ at: 0, entry: synthesizedCreation(task) });
  }
  const items = read.slice(0, limit);
  return {
    items: items.map((i) => i.entry),
    next: read.length > limit ? items[items.length - 1].at : null,
  };
}
