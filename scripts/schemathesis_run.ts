/**
 * One Schemathesis run for `deno task schemathesis`: the command line, and the figures read off the
 * tool's closing summary (operations tested, cases generated, failures by check).
 */

/** Who the run's requests are sent as: one header on every request. */
export interface Identity {
  name: string;
  header: string;
}

export interface ToolRun {
  identity: string;
  exitCode: number;
  seconds: number;
  operations: string;
  cases: string;
  failures: { check: string; count: number }[];
  /** The closing summary as the tool printed it (credentials masked). */
  summary: string;
  /** Everything the tool printed. */
  output: string;
}

export interface RunOptions {
  tool: string;
  base: string;
  cwd: string;
  identity: Identity;
  maxExamples: number;
  seed: number;
  extra: string[];
}

/** The summary's own lines: from its heading to the end, as the tool prints it. */
export function summaryOf(output: string): string {
  const lines = output.trimEnd().split("\n");
  const start = lines.findLastIndex((l) => /=+ SUMMARY =+/.test(l));
  return lines.slice(start === -1 ? -40 : start).join("\n");
}

/** `❌ Server error: 2` lines under the summary's "Failures:" heading. */
export function failuresOf(summary: string): { check: string; count: number }[] {
  const lines = summary.split("\n");
  const start = lines.findIndex((l) => l.trim() === "Failures:");
  if (start === -1) return [];
  const out: { check: string; count: number }[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^\s+\S+\s+(.+):\s+(\d+)\s*$/.exec(line);
    if (!m) break;
    out.push({ check: m[1], count: Number(m[2]) });
  }
  return out;
}

/**
 * The document's patterns hold lone-surrogate escapes (`\ud800`), which the tool echoes in its
 * report; with Python's strict stdout it dies writing them. Started through its venv's Python, it
 * prints them as escapes. (PYTHONIOENCODING would do it, but the tool reads that as a codec name.)
 */
const REPORTING_WRAPPER = [
  "import sys",
  "sys.stdout.reconfigure(errors='backslashreplace')",
  "sys.stderr.reconfigure(errors='backslashreplace')",
  "sys.argv[0] = 'schemathesis'",
  "from schemathesis.cli import schemathesis",
  "schemathesis()",
].join("; ");

/** The Python beside a venv's `schemathesis` script, if there is one. */
async function pythonOf(tool: string): Promise<string | null> {
  if (!tool.includes("/")) return null;
  const python = `${tool.slice(0, tool.lastIndexOf("/"))}/python`;
  return await Deno.stat(python).then(() => python, () => null);
}

export async function runTool(o: RunOptions): Promise<ToolRun> {
  const args = [
    "run",
    `${o.base}/openapi.json`,
    "--checks",
    "all",
    "--max-examples",
    String(o.maxExamples),
    "--seed",
    String(o.seed),
    // One worker: the machine is shared, and the figures stay comparable between runs.
    "--workers",
    "1",
    "--header",
    o.identity.header,
    // The run's own credential stands; generated ones would replace it with random text (a key
    // the service never issued is a 401, control characters a 400 from the HTTP layer).
    // `ignored_auth` still sends each operation without it and with a wrong one.
    "--generation-with-security-parameters",
    "false",
    "--no-color",
    // An event stream answers for as long as the client stays: every case would be a read timeout.
    "--exclude-path",
    "/events/stream",
    ...o.extra,
  ];
  console.log(`schemathesis as ${o.identity.name}: ${o.tool} ${args.slice(0, 2).join(" ")} ...`);
  const started = performance.now();
  const command = await pythonOf(o.tool);
  const child = new Deno.Command(command ?? o.tool, {
    args: command ? ["-c", REPORTING_WRAPPER, ...args] : args,
    // Its report folder and example database land in the run's own folder, not the repository.
    cwd: o.cwd,
    env: { COLUMNS: "120" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const secret = o.identity.header.split(": ")[1];
  // Printed as it comes (a run takes minutes), with the credential masked.
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    let text = "";
    const decoder = new TextDecoder();
    for await (const bytes of stream) {
      const masked = decoder.decode(bytes, { stream: true }).replaceAll(secret, "<credential>");
      await Deno.stdout.write(new TextEncoder().encode(masked));
      text += masked;
    }
    return text;
  };
  const [out, err, status] = await Promise.all([
    collect(child.stdout),
    collect(child.stderr),
    child.status,
  ]);
  const seconds = Math.round((performance.now() - started) / 1000);
  const output = out + err;
  const summary = summaryOf(output);
  return {
    identity: o.identity.name,
    exitCode: status.code,
    seconds,
    operations: /Tested:\s+(\d+)/.exec(summary)?.[1] ?? "?",
    cases: /(\d+) generated/.exec(summary)?.[1] ?? "?",
    failures: failuresOf(summary),
    summary,
    output,
  };
}
