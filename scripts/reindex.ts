/**
 * `deno task reindex`: rewrites every task index entry and counter from the task records, for a
 * store written in an older index layout (the service says so when it starts). Run it with the
 * service stopped; it uses the same store as the service (KV_PATH or ./data). `--check` only
 * reads: it checks every index entry and counter against the records and exits 1 on any problem.
 */
import { parseSettings } from "../domain/settings.ts";
import { checkTaskIndexes } from "../kv/tasks/index_check.ts";
import { INDEX_LAYOUT, rebuildTaskIndexes } from "../kv/tasks/index_layout.ts";
import { openStore } from "../kv/store/open_store.ts";

async function rebuild(kv: Deno.Kv) {
  const started = performance.now();
  const report = await rebuildTaskIndexes(kv, (done) => {
    console.error(`removed ${done.removed} entries and counters; rewrote ${done.records} tasks`);
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `Task indexes rebuilt in layout ${INDEX_LAYOUT}: ${report.records} task records, ` +
      `${report.removed} old entries and counters replaced, in ${seconds} s.`,
  );
}

/** The consistency pass; true when the store is consistent. */
async function check(kv: Deno.Kv): Promise<boolean> {
  const report = await checkTaskIndexes(kv);
  for (const problem of report.problems) console.error(problem);
  if (report.problemCount > report.problems.length) {
    console.error(`... and ${report.problemCount - report.problems.length} more`);
  }
  const counts = `${report.records} task records (${report.liveRecords} live), ` +
    `${report.indexEntries} index entries, ${report.counters} counters`;
  if (report.problemCount === 0) {
    console.log(`Task indexes consistent: ${counts}.`);
    return true;
  }
  console.log(
    `Task indexes inconsistent: ${report.problemCount} problems in ${counts}; ` +
      "stop the service and run `deno task reindex` to rebuild them.",
  );
  return false;
}

if (import.meta.main) {
  const settings = parseSettings(Deno.env.toObject());
  const kv = await openStore(settings.KV_PATH);
  let ok = true;
  try {
    if (Deno.args.includes("--check")) ok = await check(kv);
    else await rebuild(kv);
  } finally {
    kv.close();
  }
  if (!ok) Deno.exit(1);
}
