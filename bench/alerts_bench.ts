/**
 * `deno task bench:alerts`: what matching a new task against the alerts costs, with 10,000 and
 * 100,000 alerts spread like the explore bench's tasks: store reads per task, p50 and p99 of
 * finding and checking the candidates in-process, and alerts examined against alerts matched.
 * The two sizes are the comparison: reads and examined-per-matched must not grow with the total.
 * Usage: deno task bench:alerts [--sizes=10000,100000] [--tasks=500]
 */
import { numberFlag } from "./flags.ts";
import { findMatches } from "../kv/alerts/matching.ts";
import { meter } from "../kv/store/meter.ts";
import type { TaskRecord } from "../domain/tasks/task.ts";
import { loadAlerts } from "./alerts_data.ts";
import { everydayTask } from "./everyday_data.ts";
import { generateTask } from "./explore_data.ts";
import { loadAverage, markdownTable, writeResults } from "./results.ts";

const sizesFlag = Deno.args.find((a) => a.startsWith("--sizes="))?.slice("--sizes=".length);
const SIZES = (sizesFlag ?? "10000,100000").split(",").map(Number);
const TASKS = numberFlag("tasks", 500);

/** The new tasks: explore bench tasks (the alerts' own spread) and everyday tasks (long texts). */
const TASK_SETS: { name: string; task: (i: number) => TaskRecord }[] = [
  { name: "explore-like", task: (i) => generateTask(i, TASKS, 11) },
  { name: "everyday", task: (i) => everydayTask(i, TASKS) },
];

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const fmt = (n: number, d = 2) => n.toFixed(d);
const rows: (string | number)[][] = [];
for (const size of SIZES) {
  const kv = await Deno.openKv(":memory:");
  const started = performance.now();
  const loaded = await loadAlerts(kv, size);
  console.error(
    `${size} alerts: ${loaded.entries} index entries, ${loaded.pages} word pages, ` +
      `loaded in ${fmt((performance.now() - started) / 1000, 1)} s`,
  );
  const metered = meter(kv);
  for (const set of TASK_SETS) {
    const ms: number[] = [];
    const reads: number[] = [];
    const batches: number[] = [];
    let examined = 0;
    let matched = 0;
    // Warm-up: the first calls compile the code paths.
    for (let i = 0; i < 20; i++) await findMatches(kv, set.task(i));
    for (let i = 0; i < TASKS; i++) {
      const task = { ...set.task(i), userId: "00000000-0000-4000-c000-000000000000" };
      metered.reset();
      const t0 = performance.now();
      const found = await findMatches(metered.kv, task);
      ms.push(performance.now() - t0);
      reads.push(metered.usage.reads);
      batches.push(found.reads);
      examined += found.examined;
      matched += found.matched.length;
    }
    ms.sort((a, b) => a - b);
    reads.sort((a, b) => a - b);
    batches.sort((a, b) => a - b);
    rows.push([
      size.toLocaleString("en"),
      set.name,
      `${quantile(reads, 0.5)} / ${reads.at(-1)}`,
      `${quantile(batches, 0.5)} / ${batches.at(-1)}`,
      fmt(quantile(ms, 0.5)),
      fmt(quantile(ms, 0.99)),
      fmt(examined / TASKS, 1),
      fmt(matched / TASKS, 1),
      matched === 0 ? "-" : fmt(examined / matched),
    ]);
  }
  kv.close();
}

const head = [
  "alerts",
  "new tasks",
  "reads p50 / max",
  "calls with list batches p50 / max",
  "p50 ms",
  "p99 ms",
  "examined / task",
  "matched / task",
  "examined per match",
];
const table = markdownTable(head, rows);
console.log(table);
console.log(`load average: ${loadAverage()}`);
const path = await writeResults({
  name: "alerts",
  command: `deno task bench:alerts --sizes=${SIZES.join(",")} --tasks=${TASKS}`,
  comparedWith: `the same ${TASKS} new tasks against ${SIZES.join(" and ")} alerts ` +
    "(goals: at most 10 reads, p99 under 20 ms, no growth but the candidates')",
  body: [
    `${TASKS} new tasks per set, matched in-process (find the candidates through the index, ` +
    "check each with explore's predicate; recording a match and its event come after, one read " +
    "and one commit per match). Reads: KV read calls (kv/store/meter.ts: a list is one call, a getMany " +
    "of up to 10 keys one). Calls with list batches: the same, a list counted once per 1,000 " +
    "entries it returns. All of them go out at once but the further word pages (two waits deep). " +
    "The task's author owns no alert.",
    "",
    table,
  ].join("\n"),
});
console.log(`written to ${path}`);
