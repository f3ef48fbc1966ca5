/**
 * `deno task kv:copy --from <file or URL> --to <file or URL> [--batch <n>] [--rate <n>]`: copies
 * every entry of one Deno KV store into another, printing progress; a run cut short is resumed by
 * running it again. A URL is reached by KV Connect with DENO_KV_ACCESS_TOKEN (or
 * KV_COPY_FROM_TOKEN / KV_COPY_TO_TOKEN when the two stores have different tokens).
 */
import { parseArgs } from "node:util";
import { CopyError, copyStore, MAX_BATCH_ENTRIES } from "../kv/store/copy.ts";
import { isKvConnectUrl } from "../domain/settings.ts";

const USAGE = "usage: deno task kv:copy --from <file or URL> --to <file or URL> " +
  `[--batch <entries, at most ${MAX_BATCH_ENTRIES}>] [--rate <entries per second>]`;

function fail(message: string): never {
  console.error(`kv:copy: ${message}`);
  Deno.exit(2);
}

/** A whole number option within 1..max, or undefined when absent. */
function count(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    fail(`--${name} must be a whole number from 1 to ${max}, not "${value}"`);
  }
  return Number(value);
}

/** Opens a store by path or URL; a URL takes the side's own token when one is given. */
async function open(location: string, tokenVariable: string): Promise<Deno.Kv> {
  if (isKvConnectUrl(location)) {
    const token = Deno.env.get(tokenVariable) ?? Deno.env.get("DENO_KV_ACCESS_TOKEN");
    if (!token) fail(`${location} needs DENO_KV_ACCESS_TOKEN (or ${tokenVariable})`);
    // Deno reads the token when the store is opened.
    Deno.env.set("DENO_KV_ACCESS_TOKEN", token);
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    fail(`${location} is neither a file path nor an http(s) KV Connect URL`);
  }
  try {
    return await Deno.openKv(location);
  } catch (error) {
    fail(`cannot open ${location}: ${(error as Error).message}`);
  }
}

function batches(n: number): string {
  return `${n} batch${n === 1 ? "" : "es"}`;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      batch: { type: "string" },
      rate: { type: "string" },
    },
  });
  if (!values.from || !values.to) fail(USAGE);
  if (values.from === values.to) fail("--from and --to name the same store");
  const batchEntries = count(values.batch, "batch", MAX_BATCH_ENTRIES);
  const rate = count(values.rate, "rate", Number.MAX_SAFE_INTEGER);

  const from = await open(values.from, "KV_COPY_FROM_TOKEN");
  const to = await open(values.to, "KV_COPY_TO_TOKEN");
  const started = performance.now();
  try {
    console.error(`kv:copy: ${values.from} -> ${values.to} (nothing may write to the source)`);
    const result = await copyStore({
      from,
      to,
      source: values.from,
      batchEntries,
      onBatch: async (progress, entriesThisRun) => {
        const lastKey = JSON.stringify(
          progress.lastKey,
          (_, v) => typeof v === "bigint" ? `${v}n` : v,
        );
        const done = `${progress.entries} entries (${mib(progress.bytes)})`;
        console.error(`copied ${done} in ${batches(progress.batches)}; last key ${lastKey}`);
        if (rate) {
          // Paced over this run: a throttled copy leaves a live target room for its own traffic.
          const due = (entriesThisRun / rate) * 1000;
          const elapsed = performance.now() - started;
          if (due > elapsed) await new Promise((r) => setTimeout(r, due - elapsed));
        }
      },
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `Copied ${result.entries} entries (${mib(result.bytes)}) in ${batches(result.batches)}` +
        `${result.resumed ? ", resuming an unfinished copy" : ""}; this run took ${seconds} s.`,
    );
  } catch (error) {
    if (!(error instanceof CopyError)) throw error;
    fail(error.message);
  } finally {
    from.close();
    to.close();
  }
}
