/** Runs `main.ts` as its own process, the way `deno task start` does, for start-up tests. */
import { taskRunArgs } from "../../scripts/task_line.ts";

/** The project directory. */
export const root = new URL("../..", import.meta.url).pathname;

/** The environment a fresh shell gives: no service settings, only what Deno itself needs. */
export function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  // Not a fresh shell's: every atomic a test process makes is held to denokv's limits.
  return { ...env, NO_COLOR: "1", KV_CHECK_LIMITS: "true", ...extra };
}

/**
 * Runs `main.ts` from `cwd` as `deno task start` does (its flags read from deno.json), so a test
 * passing here means the task's grants are enough.
 */
export function mainCommand(cwd: string, env: Record<string, string>): Deno.Command {
  return taskCommand("start", cwd, env);
}

/** Starts `main.ts` in `cwd` with exactly `env`. */
export function startMain(cwd: string, env: Record<string, string>): Deno.ChildProcess {
  return mainCommand(cwd, env).spawn();
}

/** Reads JSON log lines until one says `listening`; returns its port and the rest of the log. */
export async function waitForListening(child: Deno.ChildProcess) {
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const log: string[] = [];
  while (true) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`main.ts ended before listening:\n${buffer}`);
    buffer += value;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      log.push(line);
      const record = JSON.parse(line);
      if (record.msg === "listening") {
        const rest = (async () => {
          while (true) {
            const next = await lines.read();
            if (next.done) return [...log, ...buffer.split("\n")].filter(Boolean);
            buffer += next.value;
          }
        })();
        return { port: record.port as number, rest };
      }
    }
  }
}

/** Sends SIGTERM (or `signal`) and waits for the exit; returns the status, stderr and the log. */
export async function stopMain(
  child: Deno.ChildProcess,
  rest: Promise<string[]>,
  signal: Deno.Signal = "SIGTERM",
) {
  child.kill(signal);
  const [status, stderr, log] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
    rest,
  ]);
  return { status, stderr, log };
}

/**
 * Runs the script of a `deno task` (a `deno run` line of deno.json) from `cwd`, with the task's
 * own flags, so that its relative paths (./data) resolve there as they do for a user.
 */
export function taskCommand(task: string, cwd: string, env: Record<string, string>): Deno.Command {
  return denoCommand(taskRunArgs(task), cwd, env);
}

/** `deno <args>` from `cwd` with exactly `env`, its output piped for the test to read. */
export function denoCommand(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** A line of the service's JSON log, with the fields the process tests read. */
export interface LogLine {
  level?: string;
  msg: string;
  pid?: number;
  worker?: number;
  port?: number;
  signal?: string;
}

/** Follows the JSON log lines of a child, so a test can wait for the ones it expects. */
export function followLog(child: Deno.ChildProcess) {
  const lines: LogLine[] = [];
  let ended = false;
  const stderr = new Response(child.stderr).text();
  let wake = () => {};
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
        wake();
      }
    }
    ended = true;
    wake();
  })();
  const waitFor = async (count: number, test: (line: LogLine) => boolean) => {
    const deadline = Date.now() + 60_000;
    while (lines.filter(test).length < count) {
      if (ended) throw new Error(`log never showed it: ${JSON.stringify(lines)}\n${await stderr}`);
      // Past the deadline a process may still hold stderr open: the lines alone say enough.
      if (Date.now() > deadline) throw new Error(`log never showed it: ${JSON.stringify(lines)}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
    return lines.filter(test);
  };
  return { lines, waitFor, reading, stderr };
}
