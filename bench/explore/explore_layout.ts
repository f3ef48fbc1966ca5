/**
 * `deno task bench:explore-layout [--tasks=10000]`: what one task costs in the store, by index
 * family. Everyday tasks (bench/datasets/everyday_data.ts) are written one atomic each, through the
 * same `writeTaskTransition` every task write uses, into a fresh KV file; the table counts entries
 * and their encoded key and value bytes per task by the keys' first part, and the file's size.
 */
import { serialize } from "node:v8";
import { INDEX_LAYOUT } from "../../kv/tasks/index_layout.ts";
import { commit } from "../../kv/commit.ts";
import { tasks } from "../../kv/keyspace.ts";
import { keyId } from "../../kv/key_id.ts";
import { taskCounterKeys, writeTaskTransition } from "../../kv/tasks/task_indexes.ts";
import { everydayTask } from "../datasets/everyday_data.ts";
import { numberFlag } from "../lib/flags.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";

const encoder = new TextEncoder();

/** Bytes of a key as Deno KV encodes it (tuple encoding: a tag, the bytes, an end mark). */
export function encodedKeyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) {
    if (typeof part === "string") n += 2 + encoder.encode(part).length;
    else if (part instanceof Uint8Array) n += 2 + part.length;
    else if (typeof part === "boolean") n += 1;
    else n += 9;
  }
  return n;
}

/** Bytes of a value as stored: V8's serialization, or 8 for a KvU64. */
export function encodedValueBytes(value: unknown): number {
  return value instanceof Deno.KvU64 ? 8 : serialize(value).length;
}

interface Family {
  entries: number;
  keyBytes: number;
  valueBytes: number;
}

async function main() {
  const count = numberFlag("tasks", 10_000);
  const dir = await Deno.makeTempDir({ prefix: "explore-layout-" });
  const path = `${dir}/store.sqlite`;
  const kv = await Deno.openKv(path);
  const started = performance.now();
  let mutations = 0;
  const counterKeys = new Set<string>();
  for (let i = 0; i < count; i++) {
    const task = everydayTask(i, count);
    const op = kv.atomic().check({ key: tasks.record(task.id), versionstamp: null });
    mutations += writeTaskTransition(op, null, task);
    if (!(await commit(op)).ok) throw new Error("a task write failed");
    for (const key of taskCounterKeys(task)) counterKeys.add(keyId(key));
  }
  const loadSeconds = (performance.now() - started) / 1000;

  const families = new Map<string, Family>();
  for await (const entry of kv.list({ prefix: [] })) {
    const root = String(entry.key[0]);
    const f = families.get(root) ?? { entries: 0, keyBytes: 0, valueBytes: 0 };
    f.entries++;
    f.keyBytes += encodedKeyBytes(entry.key);
    f.valueBytes += encodedValueBytes(entry.value);
    families.set(root, f);
  }
  kv.close();
  const fileBytes = (await Deno.stat(path)).size +
    ((await Deno.stat(`${path}-wal`).catch(() => null))?.size ?? 0);
  await Deno.remove(dir, { recursive: true });

  const per = (n: number) => (n / count).toFixed(2);
  const kib = (n: number) => (n / count / 1024).toFixed(2);
  const sorted = [...families.entries()].sort((a, b) =>
    b[1].keyBytes + b[1].valueBytes - a[1].keyBytes - a[1].valueBytes
  );
  let total: Family = { entries: 0, keyBytes: 0, valueBytes: 0 };
  for (const [, f] of sorted) {
    total = {
      entries: total.entries + f.entries,
      keyBytes: total.keyBytes + f.keyBytes,
      valueBytes: total.valueBytes + f.valueBytes,
    };
  }
  const rows = [...sorted, ["total", total] as const].map(([root, f]) => [
    root,
    per(f.entries),
    per(f.keyBytes),
    per(f.valueBytes),
    kib(f.keyBytes + f.valueBytes),
  ]);
  const body = [
    `Index layout ${INDEX_LAYOUT}; ${count} everyday tasks (one-line titles, 25-55 word ` +
    `descriptions, 40 cities, a third with a radius), each written in its own atomic; ` +
    `load ${loadSeconds.toFixed(1)} s, load average ${loadAverage()}.`,
    "",
    markdownTable(
      [
        "family (first key part)",
        "entries / task",
        "key bytes / task",
        "value bytes / task",
        "KiB / task",
      ],
      rows,
    ),
    "",
    `- Mutations per task write: ${per(mutations)} (entries, record and counter sums).`,
    `- Counter keys (shared by tasks, counted in the table): ${counterKeys.size}.`,
    `- SQLite file (with its WAL) per task: ${kib(fileBytes)} KiB (${
      (fileBytes / 2 ** 20).toFixed(1)
    } MiB in all).`,
  ].join("\n");
  console.log(body);
  await writeResults({
    name: `explore_layout_${INDEX_LAYOUT}`,
    command: `deno task bench:explore-layout --tasks=${count}`,
    comparedWith: "nothing: one layout's cost per task (compare the files of two layouts)",
    body,
  });
}

if (import.meta.main) await main();
