/**
 * Bulk loading for the explore benchmark: the index entries and counters that every task write
 * stores (kv/tasks/task_indexes.ts), for thousands of tasks at a time, sorted by key and committed
 * in atomics within Deno KV's limits, several in flight. A task's entries thus land in several
 * atomics, not one: the stored result is what one createTask per task leaves, reached far faster
 * (see docs/explore.md).
 */
import { commit as commitOp } from "../../kv/commit.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { tasks } from "../../kv/keyspace.ts";
import { keyId } from "../../kv/key_id.ts";
import {
  keyBytes,
  MAX_MUTATIONS,
  taskCounterKeys,
  taskIndexEntries,
} from "../../kv/tasks/task_indexes.ts";

// Deno KV refuses an atomic over 1000 mutations, 800 KiB of keys and values, or 80 KiB of keys
// (ext/kv limits); stay well under each, since sizes here are over-estimates.
const MAX_BATCH_BYTES = 600 * 1024;
const MAX_BATCH_KEY_BYTES = 64 * 1024;
const IN_FLIGHT = 4;
// Tasks whose writes are sorted together. In key order an atomic touches a few neighbouring
// SQLite pages; in task order each of its ~1000 mutations touched its own page (measured: ~20x
// the page writes).
const SORT_WINDOW = 20_000;

/** What a load wrote. */
export interface LoadStats {
  tasks: number;
  records: number;
  indexEntries: number;
  explore: number;
  counters: number;
  commits: number;
}

interface Write {
  sortKey: string;
  key: Deno.KvKey;
  value: unknown;
  bytes: number;
  keyBytes: number;
}

// Over-estimates of V8's encoding (at most 2 bytes per UTF-16 unit, plus structure).
function valueBytes(value: unknown): number {
  if (Array.isArray(value)) return 160;
  if (value instanceof Deno.KvU64) return 16;
  return JSON.stringify(value).length * 2 + 64;
}

function write(key: Deno.KvKey, value: unknown): Write {
  const k = keyBytes(key);
  return { sortKey: key.join("\u0000"), key, value, bytes: k + valueBytes(value), keyBytes: k };
}

/** Loads `count` tasks produced by `task(i)` into `kv`; `progress` is told every so often. */
export async function loadTasks(
  kv: Deno.Kv,
  count: number,
  task: (i: number) => TaskRecord,
  progress: (done: number) => void = () => {},
): Promise<LoadStats> {
  const stats: LoadStats = {
    tasks: 0,
    records: 0,
    indexEntries: 0,
    explore: 0,
    counters: 0,
    commits: 0,
  };
  const counters = new Map<string, { key: Deno.KvKey; n: bigint }>();
  const inFlight = new Set<Promise<void>>();

  const commit = async (writes: Write[]) => {
    const op = kv.atomic();
    for (const w of writes) {
      if (w.value instanceof Deno.KvU64) op.sum(w.key, w.value.value);
      else op.set(w.key, w.value);
    }
    const res = await commitOp(op);
    if (!res.ok) throw new Error("a bulk load commit failed");
    stats.commits++;
  };
  const writeSorted = async (writes: Write[]) => {
    writes.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
    let batch: Write[] = [];
    let bytes = 0;
    let keys = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const p = commit(batch).finally(() => inFlight.delete(p));
      inFlight.add(p);
      batch = [];
      bytes = 0;
      keys = 0;
      if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    };
    for (const w of writes) {
      if (
        batch.length + 1 > MAX_MUTATIONS || bytes + w.bytes > MAX_BATCH_BYTES ||
        keys + w.keyBytes > MAX_BATCH_KEY_BYTES
      ) {
        await flush();
      }
      batch.push(w);
      bytes += w.bytes;
      keys += w.keyBytes;
    }
    await flush();
  };

  let pending: Write[] = [];
  for (let i = 0; i < count; i++) {
    const t = task(i);
    pending.push(write(tasks.record(t.id), t));
    for (const e of taskIndexEntries(t)) {
      pending.push(write(e.key, e.value));
      stats.indexEntries++;
      if ((e.key[0] as string).startsWith("xp_")) stats.explore++;
    }
    stats.tasks++;
    stats.records++;
    for (const key of taskCounterKeys(t)) {
      const id = keyId(key);
      const c = counters.get(id);
      if (c) c.n++;
      else counters.set(id, { key, n: 1n });
    }
    if ((i + 1) % SORT_WINDOW === 0 || i + 1 === count) {
      await writeSorted(pending);
      pending = [];
      progress(i + 1);
    }
  }
  await writeSorted(
    [...counters.values()].map(({ key, n }) => write(key, new Deno.KvU64(n))),
  );
  await Promise.all(inFlight);
  stats.counters = counters.size;
  return stats;
}
