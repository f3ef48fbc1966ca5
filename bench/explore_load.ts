/**
 * Bulk loading for the explore benchmark: the same index entries and counters as every task
 * write (kv/task_indexes.ts), packed many tasks to an atomic within Deno KV's limits, several
 * commits in flight. Counters are summed in memory and written once at the end: the stored
 * result is what one createTask per task would leave.
 */
import type { TaskRecord } from "../domain/task.ts";
import { tasks } from "../kv/keys.ts";
import { keyId, MAX_MUTATIONS, taskCounterKeys, taskIndexEntries } from "../kv/task_indexes.ts";

// Deno KV refuses an atomic over 1000 mutations, 800 KiB of keys and values, or 80 KiB of keys
// (ext/kv limits); stay well under each, since sizes here are estimates.
const MAX_BATCH_BYTES = 600 * 1024;
const MAX_BATCH_KEY_BYTES = 64 * 1024;
const IN_FLIGHT = 4;

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
  key: Deno.KvKey;
  value: unknown;
}

// An over-estimate of a key's encoded size: each part costs its UTF-8 length plus tag and end.
function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) n += (typeof part === "string" ? part.length * 3 : 9) + 2;
  return n;
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
  let batch: Write[] = [];
  let bytes = 0;
  let keyTotal = 0;

  const commit = async (writes: Write[]) => {
    const op = kv.atomic();
    for (const w of writes) {
      if (w.value instanceof Deno.KvU64) op.sum(w.key, w.value.value);
      else op.set(w.key, w.value);
    }
    const res = await op.commit();
    if (!res.ok) throw new Error("a bulk load commit failed");
    stats.commits++;
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const p = commit(batch).finally(() => inFlight.delete(p));
    inFlight.add(p);
    batch = [];
    bytes = 0;
    keyTotal = 0;
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  };

  for (let i = 0; i < count; i++) {
    const t = task(i);
    const writes: Write[] = [{ key: tasks.record(t.id), value: t }];
    for (const e of taskIndexEntries(t)) writes.push(e);
    let taskKeyBytes = 0;
    for (const w of writes) taskKeyBytes += keyBytes(w.key);
    // Four values hold the texts (record, two user listings, explore document), the rest a small
    // facet; V8's encoding of a string is at most 2 bytes per UTF-16 unit.
    const text = t.title.length + t.description.length + t.location.name.length;
    const taskBytes = taskKeyBytes + 4 * (2 * text + 600) + writes.length * 120;
    if (
      batch.length + writes.length > MAX_MUTATIONS ||
      bytes + taskBytes > MAX_BATCH_BYTES ||
      keyTotal + taskKeyBytes > MAX_BATCH_KEY_BYTES
    ) {
      await flush();
    }
    for (const w of writes) batch.push(w);
    bytes += taskBytes;
    keyTotal += taskKeyBytes;
    stats.tasks++;
    stats.records++;
    stats.indexEntries += writes.length - 1;
    for (const w of writes) if ((w.key[0] as string).startsWith("xp_")) stats.explore++;
    for (const key of taskCounterKeys(t)) {
      const id = keyId(key);
      const c = counters.get(id);
      if (c) c.n++;
      else counters.set(id, { key, n: 1n });
    }
    if ((i + 1) % 10_000 === 0) progress(i + 1);
  }
  await flush();
  for (const { key, n } of counters.values()) {
    if (batch.length + 1 > MAX_MUTATIONS || keyTotal + keyBytes(key) > MAX_BATCH_KEY_BYTES) {
      await flush();
    }
    batch.push({ key, value: new Deno.KvU64(n) });
    keyTotal += keyBytes(key);
  }
  await flush();
  await Promise.all(inFlight);
  stats.counters = counters.size;
  return stats;
}
