/**
 * The one place where every bench records its latest figures: `bench/results/<name>.md`, headed by
 * the commit, the machine and the date, so that no figure is copied into prose by hand.
 */

const RESULTS_DIR = new URL("../results/", import.meta.url);

/** What a bench run writes: its figures and what they were compared against. */
export interface BenchResults {
  /** File name without `.md`. */
  name: string;
  /** The command that produced the figures, as a reader would type it. */
  command: string;
  /** What the figures are measured against, in the same run. */
  comparedWith: string;
  /** The figures, as markdown (tables and the lines that read them). */
  body: string;
}

/** The machine and code a run measured. */
export interface RunContext {
  commit: string;
  date: string;
  deno: string;
  /** Architecture and OS: Deno 2.9 lets only --allow-all read /proc/cpuinfo for the model. */
  platform: string;
  cores: number;
  loadAverage: string;
}

async function git(...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, stdout: "piped", stderr: "null" }).output();
  return out.success ? new TextDecoder().decode(out.stdout).trim() : "";
}

/** The load average (1, 5, 15 minutes) as the benches print it. */
export function loadAverage(): string {
  return Deno.loadavg().map((n) => n.toFixed(2)).join(" ");
}

/** Commit (marked `+changes` when the code differs from it), machine and date of this run. */
export async function runContext(): Promise<RunContext> {
  const commit = await git("rev-parse", "--short", "HEAD") || "unknown";
  // The results files themselves do not count: one bench run writes several of them.
  const changes = ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results"];
  const dirty = (await git(...changes)) !== "";
  return {
    commit: dirty ? `${commit}+changes` : commit,
    date: new Date().toISOString(),
    deno: Deno.version.deno,
    platform: `${Deno.build.arch}-${Deno.build.os}`,
    cores: navigator.hardwareConcurrency,
    loadAverage: loadAverage(),
  };
}

/** A markdown table; cells are written as given. */
export function markdownTable(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Writes the run's figures under `bench/results/` and answers the file's path. */
export async function writeResults(results: BenchResults): Promise<string> {
  const run = await runContext();
  const text = [
    `# Latest figures: \`${results.command}\``,
    "",
    "Written by the bench itself; run it again to replace them.",
    "",
    `- commit: ${run.commit}`,
    `- date: ${run.date}`,
    `- machine: ${run.cores} cores, ${run.platform}, Deno ${run.deno}`,
    `- load average (1/5/15 min) at the end of the run: ${run.loadAverage}`,
    `- compared with: ${results.comparedWith}`,
    "",
    results.body.trim(),
    "",
  ].join("\n");
  await Deno.mkdir(RESULTS_DIR, { recursive: true });
  const url = new URL(`${results.name}.md`, RESULTS_DIR);
  await Deno.writeTextFile(url, text);
  return url.pathname;
}
