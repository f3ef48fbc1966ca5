/**
 * The single source of a task's index entries and counters. Every write computes the entries of
 * the state before and after and moves from one to the other inside the write's atomic, so an
 * index never disagrees with its record. New indexes (explore) are added here and nowhere else.
 */
import { isLive, paymentOf, searchTerms, type TaskRecord } from "../../domain/tasks/task.ts";
import { toTaskListItem } from "../../domain/tasks/task_view.ts";
import {
  EXPLORE_COUNTER_ROOTS,
  EXPLORE_INDEX_ROOTS,
  exploreCounterKeys,
  exploreIndexEntries,
} from "../explore/mod.ts";
import { keyId } from "../key_id.ts";
import { tasks } from "../keyspace.ts";
import { type PackedItem, packItem } from "./packed_item.ts";
import { type PackedWords, packWords } from "./packed_words.ts";

/** One index entry of a task state. */
export interface TaskIndexEntry {
  key: Deno.KvKey;
  value: unknown;
}

/** Value of the index that an owner's search reads: the packed list item and its search words. */
export type TaskSearchEntry = [...PackedItem, words: PackedWords];

/** First key part of every task index, so a checker can find entries no record accounts for. */
export const TASK_INDEX_ROOTS: readonly string[] = [
  "tasks_by_user",
  "tasks_by_user_status",
  "tasks_by_user_payment",
  ...EXPLORE_INDEX_ROOTS,
];

/** First key part of every task counter. */
export const TASK_COUNTER_ROOTS: readonly string[] = [
  "task_counts_by_user_status",
  ...EXPLORE_COUNTER_ROOTS,
];

/** Deno KV refuses an atomic with more mutations than this. */
export const MAX_MUTATIONS = 1000;

/** Every index entry of a task state, explore's included; none for a deleted task. */
export function taskIndexEntries(task: TaskRecord): TaskIndexEntry[] {
  if (!isLive(task)) return [];
  const item = packItem(toTaskListItem(task));
  const searchable: TaskSearchEntry = [...item, packWords(searchTerms(task))];
  return [
    { key: tasks.byUser(task.userId, task.orderKey), value: searchable },
    { key: tasks.byUserStatus(task.userId, task.status, task.orderKey), value: item },
    // The owner's search reads `byUser` (its words), whatever the payment class asked for.
    { key: tasks.byUserPayment(task.userId, paymentOf(task.budget), task.orderKey), value: item },
    ...exploreIndexEntries(task),
  ];
}

/** The counters (Deno.KvU64) a task state counts one towards; none for a deleted task. */
export function taskCounterKeys(task: TaskRecord): Deno.KvKey[] {
  if (!isLive(task)) return [];
  return [tasks.countByUserStatus(task.userId, task.status), ...exploreCounterKeys(task)];
}

/**
 * An over-estimate of a key's encoded size, for keeping an atomic under Deno KV's limit on the
 * keys it writes: each part costs its UTF-8 length plus tag and end.
 */
export function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) n += (typeof part === "string" ? part.length * 3 : 9) + 2;
  return n;
}

function sameValue(a: unknown, b: unknown): boolean {
  const text = (v: unknown) =>
    JSON.stringify(v, (_, x) => typeof x === "bigint" ? `${x}n` : x as unknown);
  return text(a) === text(b);
}

// Adding 2^64 - 1 to a KvU64 wraps around: it is how `sum` subtracts one.
const MINUS_ONE = new Deno.KvU64((1n << 64n) - 1n);
const PLUS_ONE = new Deno.KvU64(1n);

/**
 * Adds to `op` the record write and the index and counter changes that move a task from
 * `before` (null when new) to `after`: entries of the old state that the new one lacks are
 * deleted, new or changed entries set, counters moved. Returns the number of mutations.
 */
export function writeTaskTransition(
  op: Deno.AtomicOperation,
  before: TaskRecord | null,
  after: TaskRecord,
): number {
  const oldEntries = new Map(
    (before ? taskIndexEntries(before) : []).map((e) => [keyId(e.key), e] as const),
  );
  const newEntries = new Map(taskIndexEntries(after).map((e) => [keyId(e.key), e] as const));
  let mutations = 1;
  op.set(tasks.record(after.id), after);
  for (const [id, entry] of oldEntries) {
    if (!newEntries.has(id)) {
      op.delete(entry.key);
      mutations++;
    }
  }
  for (const [id, entry] of newEntries) {
    const old = oldEntries.get(id);
    if (!old || !sameValue(old.value, entry.value)) {
      op.set(entry.key, entry.value);
      mutations++;
    }
  }
  const oldCounters = new Map(
    (before ? taskCounterKeys(before) : []).map((k) => [keyId(k), k] as const),
  );
  const newCounters = new Map(taskCounterKeys(after).map((k) => [keyId(k), k] as const));
  for (const [id, key] of oldCounters) {
    if (!newCounters.has(id)) {
      op.sum(key, MINUS_ONE.value);
      mutations++;
    }
  }
  for (const [id, key] of newCounters) {
    if (!oldCounters.has(id)) {
      op.sum(key, PLUS_ONE.value);
      mutations++;
    }
  }
  if (mutations > MAX_MUTATIONS) {
    throw new Error(`A task write needs ${mutations} mutations, over the ${MAX_MUTATIONS} limit`);
  }
  return mutations;
}
