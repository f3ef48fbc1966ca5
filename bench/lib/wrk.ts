/** Runs wrk (Debian's package) pinned to CPU 0 with bench/lib/wrk.lua and reads its report. */

export interface WrkLoad {
  url: string;
  method: "GET" | "POST";
  /** File of paths sent in turn, one a line. */
  pathsFile: string;
  apiKey?: string;
  bodyFile?: string;
  /** Sent as Accept-Encoding; none when absent, as wrk sends by default. */
  acceptEncoding?: string;
  connections: number;
  seconds: number;
  /**
   * How long wrk waits for an answer before it counts a timeout (its own default is 2 s). A slow
   * answer is still an answer: its status, 5xx or not, is what the bench judges.
   */
  timeoutSeconds?: number;
}

export interface WrkResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx/3xx, and socket errors (connect, read, write, timeout). */
  non2xx: number;
  socketErrors: number;
  raw: string;
}

const SCRIPT = new URL("./wrk.lua", import.meta.url).pathname;
const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** Makes sure wrk is installed: apt-get when running as root, else a message saying how. */
export async function ensureWrk(): Promise<void> {
  const found = await new Deno.Command("sh", { args: ["-c", "command -v wrk"], stdout: "null" })
    .output();
  if (found.success) return;
  console.error("wrk is not installed; installing Debian's package (apt-get install -y wrk)");
  const install = await new Deno.Command("sh", {
    args: ["-c", "apt-get install -y wrk || (apt-get update && apt-get install -y wrk)"],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!install.success) {
    throw new Error("could not install wrk: run `sudo apt-get install -y wrk` and retry");
  }
}

function millis(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match) throw new Error(`wrk latency not understood: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2]];
}

/** Parses wrk's --latency report. */
export function parseWrk(raw: string): WrkResult {
  const number = (pattern: RegExp) => {
    const match = pattern.exec(raw);
    return match ? Number(match[1]) : 0;
  };
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(raw);
    if (!match) throw new Error(`wrk printed no ${p}th percentile:\n${raw}`);
    return millis(match[1]);
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(raw);
  return {
    requests: number(/(\d+) requests in/),
    rps: number(/Requests\/sec:\s+([\d.]+)/),
    p50Ms: percentile("50"),
    p99Ms: percentile("99"),
    non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    raw,
  };
}

/** One wrk run on CPU 0: one thread, `connections` connections, `seconds` long. */
export async function runWrk(load: WrkLoad): Promise<WrkResult> {
  const output = await new Deno.Command("taskset", {
    args: [
      "-c",
      "0",
      "wrk",
      "-t1",
      `-c${load.connections}`,
      `-d${load.seconds}s`,
      `--timeout=${load.timeoutSeconds ?? 2}s`,
      "--latency",
      "-s",
      SCRIPT,
      load.url,
    ],
    env: {
      BENCH_METHOD: load.method,
      BENCH_PATHS_FILE: load.pathsFile,
      BENCH_API_KEY: load.apiKey ?? "",
      BENCH_BODY_FILE: load.bodyFile ?? "",
      BENCH_ACCEPT_ENCODING: load.acceptEncoding ?? "",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const raw = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (!output.success) throw new Error(`wrk failed:\n${raw}`);
  return parseWrk(raw);
}
