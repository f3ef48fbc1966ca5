/**
 * `deno task bench [files]`: runs the `Deno.bench` files (`bench/*_bench.ts` by default) through
 * `deno bench --json`, prints one table per file and writes it to `bench/results/<file>.md`.
 */
import { markdownTable, writeResults } from "./results.ts";

interface BenchStats {
  n: number;
  min: number;
  avg: number;
  p75: number;
  p99: number;
}

interface BenchEntry {
  origin: string;
  group: string | null;
  name: string;
  baseline: boolean;
  results: { ok?: BenchStats; failed?: unknown }[];
}

const PERMISSIONS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-sys",
];

/** What a bench file says it measures and compares with: its opening JSDoc, on one line. */
async function moduleDoc(path: string): Promise<string> {
  const text = await Deno.readTextFile(path);
  const doc = /^\/\*\*([\s\S]*?)\*\//.exec(text)?.[1] ?? "";
  return doc.split("\n").map((l) => l.replace(/^\s*\*\s?/, "")).join(" ").replace(/\s+/g, " ")
    .trim();
}

const time = (ns: number) =>
  ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`;

function table(entries: BenchEntry[]): string {
  return markdownTable(
    ["group", "bench", "avg", "p75", "p99", "min", "iterations"],
    entries.map((e) => {
      const s = e.results[0]?.ok;
      if (!s) return [e.group ?? "", e.name, "failed", "", "", "", ""];
      return [e.group ?? "", e.name, time(s.avg), time(s.p75), time(s.p99), time(s.min), s.n];
    }),
  );
}

async function main() {
  const args = Deno.args.length ? Deno.args : ["bench/"];
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bench", "--json", ...PERMISSIONS, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`deno bench failed (exit code ${out.code}), see above`);
  const report = JSON.parse(new TextDecoder().decode(out.stdout)) as { benches: BenchEntry[] };
  const byFile = Map.groupBy(report.benches, (b) => b.origin);
  for (const [origin, entries] of byFile) {
    const path = new URL(origin).pathname;
    const name = path.split("/").at(-1)!.replace(/_bench\.ts$/, "").replace(/\.ts$/, "");
    const body = table(entries);
    const doc = await moduleDoc(path);
    console.log(`\n${name}: ${doc}\n\n${body}`);
    const file = await writeResults({
      name,
      command: `deno task bench bench/${path.split("/").at(-1)}`,
      comparedWith: doc,
      body,
    });
    console.log(`\nwritten to ${file}`);
  }
}

if (import.meta.main) await main();
