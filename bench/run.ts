/**
 * `deno task bench [--list] [files]`: lists every bench (each `bench:*` task of deno.json and each
 * `Deno.bench` file), then runs the `Deno.bench` files (every `*_bench.ts` under bench/ by default)
 * through `deno bench --json`, prints one table per file and writes it to
 * `bench/results/<file>.md`. The task benches are listed from their text, never loaded: each runs
 * only as its own task.
 */
import { markdownTable, writeResults } from "./lib/results.ts";

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

/** One bench as the list shows it: how it is run, its file, what it measures and against what. */
export interface ListedBench {
  command: string;
  file: string;
  doc: string;
}

const ROOT = new URL("../", import.meta.url);

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

/** The `Deno.bench` files under bench/, as paths from the repository's root. */
async function benchFiles(dir = "bench"): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(`${dir}/`, ROOT))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "results") found.push(...await benchFiles(path));
    else if (entry.isFile && entry.name.endsWith("_bench.ts")) found.push(path);
  }
  return found.sort();
}

/**
 * Every bench: the `bench:<name>` tasks, each running `bench/<folder>/<name>.ts` with `-` as `_`
 * (a task whose file is named otherwise is an error), then the `Deno.bench` files.
 */
export async function listBenches(): Promise<ListedBench[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const listed: ListedBench[] = [];
  for (const [task, command] of Object.entries(config.tasks as Record<string, string>)) {
    if (!task.startsWith("bench:")) continue;
    const file = command.split(" ").find((word) => /^bench\/.+\.ts$/.test(word));
    const expected = `${task.slice("bench:".length).replaceAll("-", "_")}.ts`;
    if (!file || file.split("/").at(-1) !== expected) {
      throw new Error(
        `task ${task} runs ${file ?? "no bench file"}, not bench/<folder>/${expected}`,
      );
    }
    listed.push({ command: `deno task ${task}`, file, doc: await moduleDoc(file) });
  }
  for (const file of await benchFiles()) {
    listed.push({ command: `deno task bench ${file}`, file, doc: await moduleDoc(file) });
  }
  return listed;
}

/** The doc without the usage line it opens with (`deno task …`: …), cut to its first sentence. */
function summary(doc: string): string {
  const body = doc.replace(/^`deno task [^`]*`:\s*/, "");
  const end = body.search(/\.(\s|$)/);
  return end < 0 ? body : body.slice(0, end + 1);
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

async function runDenoBench(files: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bench", "--json", ...PERMISSIONS, ...files],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`deno bench failed (exit code ${out.code}), see above`);
  const report = JSON.parse(new TextDecoder().decode(out.stdout)) as { benches: BenchEntry[] };
  const byFile = Map.groupBy(report.benches, (b) => b.origin);
  for (const [origin, entries] of byFile) {
    const path = new URL(origin).pathname;
    const relative = path.slice(new URL(ROOT).pathname.length);
    const name = path.split("/").at(-1)!.replace(/_bench\.ts$/, "").replace(/\.ts$/, "");
    const body = table(entries);
    const doc = await moduleDoc(path);
    console.log(`\n${name}: ${doc}\n\n${body}`);
    const file = await writeResults({
      name,
      command: `deno task bench ${relative}`,
      comparedWith: doc,
      body,
    });
    console.log(`\nwritten to ${file}`);
  }
}

async function main() {
  const listOnly = Deno.args.includes("--list");
  const files = Deno.args.filter((a) => a !== "--list");
  const benches = await listBenches();
  console.log("Every bench (see bench/README.md):\n");
  console.log(markdownTable(
    ["run", "file", "measures"],
    benches.map((b) => [`\`${b.command}\``, b.file, summary(b.doc)]),
  ));
  if (listOnly) return;
  await runDenoBench(files.length ? files : await benchFiles());
}

if (import.meta.main) await main();
