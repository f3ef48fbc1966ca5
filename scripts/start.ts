/**
 * `deno task start`: serves main.ts on WORKERS processes sharing one port (SO_REUSEPORT: the
 * kernel spreads connections) and one store. SIGINT/SIGTERM reach every worker, each drains and
 * flushes before it exits; a worker that dies is started again.
 */
import { createLogger, flushStdout } from "../domain/log.ts";
import { parseSettings } from "../domain/settings.ts";
import { taskRunArgs } from "./task_line.ts";

// A worker that exits with an error this soon after its start failed to start (a bad KV_PATH, a
// port in use): starting it again would fail the same way, so the service stops with its code.
const START_GRACE_MS = 5_000;

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
  const args = taskRunArgs("serve");
  let stopping = false;
  const running = new Map<number, Worker>();
  let exitCode = 0;
  let done: () => void;
  const finished = new Promise<void>((resolve) => done = resolve);

  const spawn = (index: number) => {
    const process = new Deno.Command(Deno.execPath(), {
      args: [...args, `--worker=${index}`],
      env: { PORT: String(port) },
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    const worker = { index, process, startedAt: Date.now() };
    running.set(index, worker);
    process.status.then((status) => exited(worker, status));
  };

  const stopAll = (signal: Deno.Signal) => {
    stopping = true;
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
    // Exiting by itself with an error soon after its start is a failure to start; a signal (a
    // crash, a kill) or a clean exit after a SIGTERM to it alone is not.
    const failedToStart = status.signal === null && status.code !== 0 &&
      Date.now() - worker.startedAt < START_GRACE_MS;
    if (!stopping && !failedToStart) {
      // A crash, a kill or a SIGTERM to this worker alone (a rolling restart): serve on.
      log.error("worker ended; starting it again", {
        worker: worker.index,
        code: status.code,
        signal: status.signal,
      });
      spawn(worker.index);
      return;
    }
    const stoppedBySignal = status.signal === "SIGTERM" || status.signal === "SIGINT";
    if (!status.success && !stoppedBySignal) exitCode ||= status.code || 1;
    // Failed at start: the other workers would fail alike, so the service stops with its code.
    if (!stopping) stopAll("SIGTERM");
    if (running.size === 0) done();
  };

  for (let i = 0; i < settings.WORKERS; i++) spawn(i);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stopAll(signal));
  }
  await finished;
  flushStdout();
  Deno.exit(exitCode);
}

if (import.meta.main) await main();
