/** A small structured logger: one JSON object a line on stdout, filtered by LOG_LEVEL. */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const encoder = new TextEncoder();
/** True on Deno Deploy, which says it collects logs from the console API, not from stdout. */
function onDeploy(): boolean {
  try {
    return Deno.env.get("DENO_DEPLOY") === "true";
  } catch {
    return false; // no env permission: not Deploy, which grants everything
  }
}
const hasStdout = typeof Deno.stdout?.writeSync === "function" && !onDeploy();

/**
 * Writes a line to stdout. Not console.log: that formats its arguments first, several times
 * the cost of this write, on every request (bench:http). A failed write (stdout closed)
 * loses the line rather than failing the request that logs it.
 */
export function writeStdout(line: string): void {
  if (!hasStdout) {
    console.log(line); // Deno Deploy (Classic had no Deno.stdout): console is what it collects
    return;
  }
  try {
    const bytes = encoder.encode(line + "\n");
    let written = 0;
    while (written < bytes.length) {
      written += Deno.stdout.writeSync(bytes.subarray(written, lineBoundary(bytes, written)));
    }
  } catch {
    // Nowhere left to report it.
  }
}

// The workers of `deno task start` share one stdout pipe, where only writes of up to PIPE_BUF
// bytes are atomic: a larger batch could interleave with another worker's inside a line.
const PIPE_BUF = 4096;

/** The end of the next chunk from `start`: whole lines within PIPE_BUF, or one longer line. */
function lineBoundary(bytes: Uint8Array, start: number): number {
  if (bytes.length - start <= PIPE_BUF) return bytes.length;
  const newline = bytes.lastIndexOf(10, start + PIPE_BUF - 1);
  if (newline >= start) return newline + 1;
  const next = bytes.indexOf(10, start + PIPE_BUF);
  return next < 0 ? bytes.length : next + 1;
}

// Lines waiting for the end of this turn of the event loop; a full batch leaves at once.
const pending: string[] = [];
const MAX_PENDING = 256;
let scheduled = false;

/**
 * Queues a line for stdout; every line of one turn of the event loop leaves in one write. Under
 * load many requests finish in a turn, and a write each (a system call) was one of the larger
 * costs of a cached GET (bench:http). Lines are lost only if the process dies before the
 * turn ends; shutdown and exit flush them.
 */
export function writeStdoutBatched(line: string): void {
  pending.push(line);
  if (pending.length >= MAX_PENDING) {
    flushStdout();
  } else if (!scheduled) {
    scheduled = true;
    setTimeout(flushStdout, 0);
  }
}

/** Writes every queued line now. */
export function flushStdout(): void {
  scheduled = false;
  if (pending.length === 0) return;
  const text = pending.join("\n");
  pending.length = 0;
  writeStdout(text);
}

globalThis.addEventListener("unload", flushStdout);

let stampedAt = NaN;
let stamp = "";

/** The current time in ISO 8601; formatting it took half of a log line, so once per millisecond. */
function timestamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

/**
 * One JSON line: time, level and message, then the fields. The fields are serialized as they are
 * and joined to the head, not spread into a new object first: that copy was most of a line's cost,
 * and every request writes one. Fields that would replace the head's go the long way.
 */
function line(at: LogLevel, msg: string, fields: LogFields): string {
  if ("time" in fields || "level" in fields || "msg" in fields) {
    return JSON.stringify({ time: timestamp(), level: at, msg, ...fields });
  }
  const head = `{"time":"${timestamp()}","level":"${at}","msg":${JSON.stringify(msg)}`;
  const rest = JSON.stringify(fields);
  return rest === "{}" ? head + "}" : head + "," + rest.slice(1);
}

/** Builds a logger writing JSON lines through `write` (stdout by default). */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = writeStdoutBatched,
): Logger {
  const emit = (at: Exclude<LogLevel, "silent">) => (msg: string, fields: LogFields = {}) => {
    if (RANK[at] < RANK[level]) return;
    write(line(at, msg, fields));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
