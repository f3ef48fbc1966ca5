/**
 * Where the explore benchmark keeps its generated KV files between runs (never in the
 * repository), and the load phase that fills one: a file counts only once its manifest is
 * written, so an interrupted load is redone, not measured.
 */
import { DATA_VERSION, generateTask } from "../datasets/explore_data.ts";
import { type LoadStats, loadTasks } from "./explore_load.ts";
import { loadAverage } from "../lib/results.ts";
import { INDEX_LAYOUT } from "../../kv/tasks/index_layout.ts";

/** What a finished load recorded beside its KV file. */
export interface LoadManifest {
  n: number;
  version: number;
  seconds: number;
  stats: LoadStats;
  /** Peak resident memory of the loading process, bytes. */
  peakBytes: number;
  loadAverage: string;
}

export function cacheDir(): string {
  return Deno.env.get("EXPLORE_BENCH_DIR") ??
    `${Deno.env.get("TMPDIR") ?? "/tmp"}/explore-bench`;
}

export function kvPath(n: number): string {
  // A file holds one index layout's entries: a run of another layout loads its own.
  return `${cacheDir()}/v${DATA_VERSION}-l${INDEX_LAYOUT}-n${n}.kv`;
}

/** The manifest of a finished load of this data version, or null. */
export async function readManifest(n: number): Promise<LoadManifest | null> {
  try {
    const m = JSON.parse(await Deno.readTextFile(`${kvPath(n)}.json`)) as LoadManifest;
    return m.version === DATA_VERSION && m.n === n ? m : null;
  } catch {
    return null;
  }
}

/** Peak resident set size of this process (VmHWM), bytes. */
export async function peakRss(): Promise<number> {
  // Deno lets a program read /proc only with every permission; a child process may.
  const out = await new Deno.Command("cat", { args: [`/proc/${Deno.pid}/status`] }).output();
  const status = new TextDecoder().decode(out.stdout);
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/**
 * Reads the store's file once, so that its pages are in the page cache: another process's reads
 * (another store, a CI run) evict them, and timings then measure the disk, not the index.
 * Returns the seconds it took.
 */
export async function warmFile(path: string): Promise<number> {
  const started = performance.now();
  for (const suffix of ["", "-wal"]) {
    const file = await Deno.open(path + suffix).catch(() => null);
    if (!file) continue;
    const buffer = new Uint8Array(1 << 20);
    while (await file.read(buffer) !== null) { /* reading is the point */ }
    file.close();
  }
  return (performance.now() - started) / 1000;
}

/** The bytes of the store's file with its WAL: what a task costs on disk, per store. */
export async function storeBytes(path: string): Promise<number> {
  let total = 0;
  for (const suffix of ["", "-wal"]) {
    total += await Deno.stat(path + suffix).then((s) => s.size).catch(() => 0);
  }
  return total;
}

/** Generates and loads n tasks into a fresh KV file, then writes its manifest. */
export async function buildCache(n: number, log: (line: string) => void): Promise<LoadManifest> {
  const path = kvPath(n);
  await Deno.mkdir(cacheDir(), { recursive: true });
  for (const suffix of ["", "-wal", "-shm", ".json"]) {
    await Deno.remove(path + suffix).catch(() => {});
  }
  const kv = await Deno.openKv(path);
  const started = performance.now();
  const stats = await loadTasks(kv, n, (i) => generateTask(i, n), (done) => {
    if (done % 100_000 === 0 || done === n) {
      log(`  loaded ${done} of ${n} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  });
  kv.close();
  const manifest: LoadManifest = {
    n,
    version: DATA_VERSION,
    seconds: (performance.now() - started) / 1000,
    stats,
    peakBytes: await peakRss(),
    loadAverage: loadAverage(),
  };
  await Deno.writeTextFile(`${path}.json`, JSON.stringify(manifest));
  return manifest;
}

if (import.meta.main) {
  const n = Number(Deno.args[0]);
  if (!Number.isInteger(n) || n <= 0) throw new Error("usage: explore_cache.ts <count>");
  console.log(JSON.stringify(await buildCache(n, console.log)));
}
