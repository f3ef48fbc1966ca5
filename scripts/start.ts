/**
 * `deno task start`: serves main.ts on WORKERS processes sharing one port (SO_REUSEPORT: the
 * kernel spreads connections) and one store. SIGINT/SIGTERM reach every worker, each drains and
 * flushes before it exits; a worker that dies is started again. `--watch` (`deno task dev`)
 * restarts the workers when the service's code changes.
 */
import { createLogger, flushStdout } from "../io/log.ts";
import { portInUseMessage } from "../domain/port_in_use.ts";
import { parseSettings } from "../domain/settings.ts";
import { projectRoot, taskRunArgs } from "./task_line.ts";

// A worker that exits with an error this soon after its start failed to start (a bad KV_PATH, a
// port in use): starting it again would fail the same way, so the service stops with its code.
const START_GRACE_MS = 5_000;

const RESTART_PAUSE_MS = 1_000;

// Editors write a file in several steps; one reload per save.
const SETTLE_MS = 300;

interface Worker {
  index: number;
  process: Deno.ChildProcess;
  startedAt: number;
}

/** A free TCP port for PORT=0: every worker must bind the same one. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * True when something listens on `port` already. Probed once before the first workers start:
 * they bind with SO_REUSEPORT and would silently join another instance sharing it, which may
 * run other code on another store. A socket without SO_REUSEPORT is refused by any listener.
 */
function portTaken(port: number): boolean {
  try {
    Deno.listen({ hostname: "0.0.0.0", port }).close();
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) return true;
    throw error;
  }
}

/** The service's code, relative to the project: what `--watch` restarts the workers for. */
export const WATCHED_CODE = ["main.ts", "routes", "domain", "kv", "io"];

/**
 * Calls `onChange` once a burst of changes to the service's code has settled. An edit of a
 * dashboard script or stylesheet rewrites their generated module, whose change then reloads.
 */
function watchCode(onChange: () => void): Deno.FsWatcher {
  const paths = WATCHED_CODE.map((p) => `${projectRoot}${p}`);
  const assets = ["script/", "styles/"].map((folder) => `${projectRoot}routes/dashboard/${folder}`);
  const watcher = Deno.watchFs(paths);
  let timer: ReturnType<typeof setTimeout> | undefined;
  (async () => {
    for await (const event of watcher) {
      if (event.kind === "access") continue;
      if (event.paths.every((path) => assets.some((folder) => path.startsWith(folder)))) {
        writeAssetSources();
        continue;
      }
      clearTimeout(timer);
      timer = setTimeout(onChange, SETTLE_MS);
    }
  })();
  return watcher;
}

/**
 * Rewrites the dashboard's generated module (`deno task dashboard:assets`) in a process of its
 * own, so this supervisor needs no write permission.
 */
async function writeAssetSources(): Promise<void> {
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: taskRunArgs("dashboard:assets"),
    cwd: projectRoot,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) console.error(new TextDecoder().decode(stderr));
}

async function main() {
  let settings;
  try {
    settings = parseSettings(Deno.env.toObject());
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
  const log = createLogger(settings.LOG_LEVEL);
  const port = settings.PORT === 0 ? freePort() : settings.PORT;
  if (settings.PORT !== 0 && !settings.SHARE_PORT && portTaken(port)) {
    console.error(portInUseMessage(port));
    Deno.exit(1);
  }
  const args = taskRunArgs("serve");
  let stopping = false;
  const running = new Map<number, Worker>();
  let exitCode = 0;
  const watch = Deno.args.includes("--watch");
  /** Workers stopped by a reload, to be started again on the new code. */
  const reloading = new Set<number>();
  /** Workers that failed to start in watch mode, started again at the next change. */
  const waiting = new Set<number>();
  let done: () => void;
  const finished = new Promise<void>((resolve) => done = resolve);

  const spawn = (index: number) => {
    const process = new Deno.Command(Deno.execPath(), {
      args: [...args, `--worker=${index}`],
      env: { PORT: String(port) },
      // Never written: its end tells the worker that this supervisor is gone (see main.ts).
      stdin: "piped",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    const worker = { index, process, startedAt: Date.now() };
    running.set(index, worker);
    process.status.then((status) => exited(worker, status));
  };

  const stopAll = (signal: Deno.Signal) => {
    stopping = true;
    if (running.size === 0) done(); // every worker was between a death and its restart
    for (const { process } of running.values()) {
      try {
        process.kill(signal);
      } catch {
        // Already gone: its exit is on its way.
      }
    }
  };

  const exited = (worker: Worker, status: Deno.CommandStatus) => {
    running.delete(worker.index);
    const stoppedBySignal = status.signal === "SIGTERM" || status.signal === "SIGINT";
    if (stopping) {
      if (!status.success && !stoppedBySignal) exitCode ||= status.code || 1;
      if (running.size === 0) done();
      return;
    }
    if (reloading.delete(worker.index)) return spawn(worker.index);
    // Exiting by itself with an error soon after its start is a failure to start; a signal (a
    // crash, a kill) or a clean exit after a SIGTERM to it alone (a rolling restart) is not.
    const failedToStart = status.signal === null && status.code !== 0 &&
      Date.now() - worker.startedAt < START_GRACE_MS;
    if (!failedToStart) {
      log.error("worker ended; starting it again", {
        worker: worker.index,
        code: status.code,
        signal: status.signal,
      });
      // One that keeps dying young is restarted at most once a second, not in a tight loop.
      const young = Date.now() - worker.startedAt < START_GRACE_MS;
      setTimeout(() => stopping || spawn(worker.index), young ? RESTART_PAUSE_MS : 0);
      return;
    }
    if (watch) {
      waiting.add(worker.index);
      log.error("worker could not start; waiting for a change to the code", {
        worker: worker.index,
      });
      return;
    }
    // The other workers would fail alike: the service stops with this one's code.
    exitCode ||= status.code || 1;
    stopAll("SIGTERM");
    if (running.size === 0) done();
  };

  const reload = () => {
    log.info("code changed; restarting the workers");
    for (const index of waiting) spawn(index);
    waiting.clear();
    for (const { index, process } of running.values()) {
      reloading.add(index);
      try {
        process.kill("SIGTERM");
      } catch {
        // Already gone: its exit is on its way.
      }
    }
  };

  // Sources edited while the service was down are in the module before the first worker starts.
  if (watch) await writeAssetSources();
  for (let i = 0; i < settings.WORKERS; i++) spawn(i);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stopAll(signal));
  }
  const watcher = watch ? watchCode(reload) : null;
  await finished;
  watcher?.close();
  flushStdout();
  Deno.exit(exitCode);
}

if (import.meta.main) await main();
