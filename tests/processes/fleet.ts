/**
 * Several service processes on one KV file, driven over real HTTP: where SQLite's "database is
 * locked" appears, which two handles in one process never show.
 */
import { taskRunArgs } from "../../scripts/task_line.ts";
import {
  bareEnv,
  denoCommand,
  root,
  stopMain,
  taskCommand,
  waitForListening,
} from "./main_process.ts";

export interface Member {
  base: string;
  child: Deno.ChildProcess;
  rest: Promise<string[]>;
}

export interface Fleet extends AsyncDisposable {
  cwd: string;
  members: Member[];
  /** The base URL of member `i % size`, so that callers spread over every member. */
  base(i: number): string;
  /** Kills member `i` at once (SIGKILL): nothing flushed, nothing finished. */
  kill(i: number): Promise<void>;
  /** Stops every member still running (SIGTERM) and returns their logs. */
  stop(): Promise<string[][]>;
}

/** Fast hashing and quiet logs, so that a fleet's tests spend their time on the store. */
export const FLEET_ENV = {
  PORT: "0",
  PASSWORD_HASH_ITERATIONS: "1000",
  LOG_LEVEL: "info",
};

/**
 * `deno task serve`'s command, without the KV queue API as on Deno Deploy (tests/
 * ../without_kv_queues.ts preloaded), unless `queues` keeps it (a store of the previous version),
 * and with `preloads` (files under tests/, such as without_kv_watch.ts) loaded first too.
 */
function serveCommand(
  cwd: string,
  env: Record<string, string>,
  options: { queues: boolean; preloads: string[] },
): Deno.Command {
  const args = taskRunArgs("serve");
  const preloads = [...options.queues ? [] : ["without_kv_queues.ts"], ...options.preloads];
  for (const file of preloads) args.splice(-1, 0, `--preload=${root}tests/${file}`);
  return denoCommand(args, cwd, env);
}

/** Starts `size` processes of `main.ts` (`deno task serve`, one worker each) in one directory. */
export async function startFleet(
  size: number,
  env: Record<string, string> = {},
  cwd?: string,
  options: { queues?: boolean; preloads?: string[] } = {},
): Promise<Fleet> {
  const dir = cwd ?? await Deno.makeTempDir();
  const members: Member[] = [];
  for (let i = 0; i < size; i++) {
    const command = serveCommand(dir, bareEnv({ ...FLEET_ENV, ...env }), {
      queues: options.queues ?? false,
      preloads: options.preloads ?? [],
    });
    const child = command.spawn();
    const { port, rest } = await waitForListening(child);
    members.push({ base: `http://127.0.0.1:${port}`, child, rest });
  }
  const killed = new Set<number>();
  const stop = async () => {
    const logs: string[][] = [];
    for (const [i, member] of members.entries()) {
      if (killed.has(i)) continue;
      killed.add(i);
      logs.push((await stopMain(member.child, member.rest)).log);
    }
    return logs;
  };
  return {
    cwd: dir,
    members,
    base: (i) => members[i % members.length].base,
    async kill(i) {
      killed.add(i);
      members[i].child.kill("SIGKILL");
      await members[i].child.status;
      await members[i].child.stderr.cancel();
      await members[i].rest;
    },
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/** JSON over HTTP: the status, the parsed body (null when none) and the headers. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown } = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.json !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

/** Signs up through `base` and returns a session token. */
export async function fleetSignUp(base: string, email: string): Promise<string> {
  const password = "correct horse battery";
  const created = await call(`${base}/v1/users`, {
    method: "POST",
    json: { email, password, firstName: "Fleet" },
  });
  if (created.status !== 201) throw new Error(`sign-up failed: ${JSON.stringify(created.body)}`);
  const login = await call(`${base}/v1/auth/token`, {
    method: "POST",
    json: { email, password },
  });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return login.body.token;
}

/** `deno task start` (scripts/start.ts) with WORKERS processes on one port: the default start. */
export interface Service extends AsyncDisposable {
  base: string;
  cwd: string;
  /** The workers' process ids, as each logged when it began listening. */
  pids: number[];
}

/**
 * Starts `deno task start` with `workers` workers in a fresh directory and waits until every one
 * listens. Its log is read all along, so a busy service never blocks on a full pipe.
 */
export async function startService(
  workers: number,
  env: Record<string, string> = {},
): Promise<Service> {
  const cwd = await Deno.makeTempDir();
  const child = taskCommand(
    "start",
    cwd,
    bareEnv({ ...FLEET_ENV, WORKERS: String(workers), ...env }),
  ).spawn();
  const stderr = new Response(child.stderr).text();
  const listening: { port: number; pid: number }[] = [];
  let ready!: () => void;
  const allListening = new Promise<void>((resolve) => ready = resolve);
  const reading = (async () => {
    let buffer = "";
    for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += text;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (!line.includes('"listening"')) continue;
        const record = JSON.parse(line);
        if (record.msg !== "listening") continue;
        listening.push(record);
        if (listening.length === workers) ready();
      }
    }
  })();
  const first = await Promise.race([allListening.then(() => null), child.status]);
  if (first) {
    throw new Error(`deno task start ended before listening (${first.code}):\n${await stderr}`);
  }
  return {
    base: `http://127.0.0.1:${listening[0].port}`,
    cwd,
    pids: listening.map((l) => l.pid),
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await Promise.all([reading, stderr]);
      await Deno.remove(cwd, { recursive: true });
    },
  };
}
