/**
 * `deno task reindex`: rewrites every task index entry and counter from the task records, for a
 * store written in an older index layout (the service says so when it starts). Run it with the
 * service stopped; it uses the same store as the service (KV_PATH or ./data).
 */
import { parseSettings } from "../domain/settings.ts";
import { INDEX_LAYOUT, rebuildTaskIndexes } from "../kv/index_layout.ts";
import { openStore } from "../kv/store.ts";

if (import.meta.main) {
  const settings = parseSettings(Deno.env.toObject());
  const kv = await openStore(settings.KV_PATH);
  const started = performance.now();
  try {
    const report = await rebuildTaskIndexes(kv, (done) => {
      console.error(`removed ${done.removed} entries and counters; rewrote ${done.records} tasks`);
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `Task indexes rebuilt in layout ${INDEX_LAYOUT}: ${report.records} task records, ` +
        `${report.removed} old entries and counters replaced, in ${seconds} s.`,
    );
  } finally {
    kv.close();
  }
}
