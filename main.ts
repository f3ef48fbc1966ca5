/**
 * Entry point: reads settings, opens Deno KV (a local file, a KV Connect URL, or Deno Deploy's own
 * store), serves the app and runs the jobs, and on SIGINT/SIGTERM stops accepting, finishes
 * in-flight requests, flushes, closes KV.
 */
import { flushStdout } from "./io/log.ts";
import { portInUseMessage } from "./domain/port_in_use.ts";
import { deliveryPolicy, isKvConnectUrl, parseSettings, type Settings } from "./domain/settings.ts";
import { drainLegacyQueue } from "./kv/jobs/legacy_queue.ts";
import type { JobRunner } from "./kv/jobs/runner.ts";
import { jobPollTimer, startJobs } from "./kv/jobs/start.ts";
import { createApp } from "./routes/app.ts";
import { createDeps, instanceTimers } from "./routes/router/deps.ts";
import { openStore } from "./kv/store/open_store.ts";
import { storeOpenFailure } from "./kv/store/store_open_failure.ts";
import { limitGuard } from "./kv/store/limits.ts";
import { retryTransient } from "./kv/commit.ts";
import { checkIndexLayout, INDEX_LAYOUT } from "./kv/tasks/index_layout.ts";
import { lookForLegacyAlerts, moveLegacyAlerts } from "./kv/alerts/legacy.ts";
import { buildListeners, lookForListeners } from "./kv/webhooks/listeners.ts";

/** How long a shutdown waits for open requests before it closes the rest itself. */
const SHUTDOWN_GRACE_MS = 3_000;

/** This process's job runner, once main has opened the store; the cron runs it. */
let jobRunner: JobRunner | null = null;

/**
 * Every minute, due jobs run even when no instance serves: Deno Deploy starts one for the cron
 * (registered at module top level, as Deploy requires). It costs one read when nothing is due.
 * Where Deno.cron is missing or unstable flags are off, the instances' own runners do it all.
 */
function registerJobsCron() {
  const cron =
    (Deno as { cron?: (name: string, schedule: string, run: () => Promise<void>) => void })
      .cron;
  if (typeof cron !== "function") return;
  try {
    cron("run due background jobs", "* * * * *", async () => await jobRunner?.drain());
  } catch {
    // Registered already (a second import) or refused: the runners still poll.
  }
}

if (import.meta.main) registerJobsCron();

/** `--worker=<n>` when started as a worker of `deno task start` (scripts/start.ts), else null. */
function workerIndex(args: string[]): number | null {
  const arg = args.find((a) => a.startsWith("--worker="));
  return arg ? Number(arg.slice("--worker=".length)) : null;
}

/**
 * A worker's stdin is a pipe from its supervisor (scripts/start.ts), which never writes to it: the
 * pipe ends only when the supervisor is gone, even by kill -9, which leaves it no chance to signal.
 * The worker then stops as on SIGTERM rather than serve on, orphaned, beside a restarted service.
 */
function stopWhenSupervisorGone(stop: () => void) {
  (async () => {
    try {
      for await (const _ of Deno.stdin.readable) { /* nothing is sent */ }
    } catch {
      // A broken pipe says the same as its end.
    }
    stop();
  })();
}

async function main() {
  let settings: Settings;
  try {
    settings = parseSettings(Deno.env.toObject());
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
  let kv: Deno.Kv;
  try {
    kv = await openStore(settings.KV_PATH);
    if (settings.KV_CHECK_LIMITS) kv = limitGuard(kv);
  } catch (error) {
    console.error(await storeOpenFailure(settings.KV_PATH, error));
    Deno.exit(1);
  }
  // Start-up reads race the other workers' first writes to a new file: retried like commits.
  // Read together, they cost a cold instance on Deploy one round trip before it serves.
  const [deps, layout, legacyAlerts, listeners] = await Promise.all([
    createDeps(kv, settings),
    retryTransient(() => checkIndexLayout(kv)),
    retryTransient(() => lookForLegacyAlerts(kv)),
    retryTransient(() => lookForListeners(kv)),
  ]);
  if (!layout.current) {
    // Served anyway (records, keys and accounts are whole), but loudly: listings and explore
    // read indexes of another layout and may miss or misplace tasks until they are rebuilt.
    deps.log.error(
      "the task indexes were written in an older layout: stop the service and run " +
        "`deno task reindex` (see docs/deploying.md)",
      { storedLayout: layout.stored, currentLayout: INDEX_LAYOUT },
    );
  }
  let stopping = false;
  // Work cut short by the store closing at shutdown is no failure: a store's upgrade is taken up
  // again by the next start, which finds the store not yet marked; so is the old queue's drain.
  const failed = (what: string) => (error: Error) =>
    stopping
      ? deps.log.info(`${what} left at shutdown`, { error: error?.message })
      : deps.log.error(`${what} failed`, { error: error?.message });
  const upgrades = Promise.all([
    // Alerts filed as list entries by an older version: this instance's matching reads those
    // lists until they are moved onto pages (docs/alerts.md).
    legacyAlerts &&
    moveLegacyAlerts(kv).then(
      (moved) => deps.log.info("alerts moved onto index pages", { moved }),
      failed("moving alerts onto index pages"),
    ),
    // A store written before the listeners' shards: matching reads subscriptions until they are
    // built (kv/webhooks/listeners.ts).
    !listeners && buildListeners(kv).then(
      () => deps.log.info("task.matched listeners built"),
      failed("building the task.matched listeners"),
    ),
  ]);
  const app = createApp(deps);
  const jobs = startJobs({
    kv,
    now: deps.now,
    webhooks: deliveryPolicy(settings),
    // A job cut short by the store closing at shutdown is no failure: its lease hands it on.
    onError: (what, error) =>
      stopping
        ? deps.log.info(`job left at shutdown: ${what}`, { error: error?.message })
        : deps.log.error(`job failed: ${what}`, { error: error?.message }),
  });
  jobRunner = jobs;
  const background = instanceTimers(deps).add(jobPollTimer(jobs));
  background.start();
  // KV Connect has no queues, and its queue listener never settles, not even on close: awaited at
  // shutdown, it would hold the process forever.
  const legacy = isKvConnectUrl(settings.KV_PATH)
    ? Promise.resolve()
    : drainLegacyQueue(kv, deps.now).then(
      (refused) => refused && deps.log.info("no old KV queue to drain", { reason: refused }),
      failed("old queue drain"),
    );

  const worker = workerIndex(Deno.args);
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      port: settings.PORT,
      // Workers of `deno task start` share the port (their supervisor checked that no one else
      // held it); the kernel spreads connections over them.
      reusePort: worker !== null || settings.SHARE_PORT,
      onListen: ({ hostname, port }) =>
        deps.log.info("listening", { hostname, port, pid: Deno.pid, worker }),
    }, (request, info) => {
      background.touch();
      return app.fetch(request, info);
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    console.error(portInUseMessage(settings.PORT));
    flushStdout();
    Deno.exit(1);
  }

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.log.info("shutting down", { signal });
    // Open streams would hold the server's shutdown for up to their hour: they end first (their
    // clients reconnect elsewhere with Last-Event-ID), and give their slots back.
    await deps.live.close();
    // A client that never finishes reading holds a graceful shutdown open (for minutes on Deno
    // 2.5); Deploy kills an instance five seconds after the signal, and the jobs, the store and
    // the log must still be closed and flushed before then.
    const drained = await Promise.race([
      server.shutdown().then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), SHUTDOWN_GRACE_MS)),
    ]);
    if (!drained) deps.log.warn("connections still open at shutdown; closing them");
    await background.stop();
    await jobs.stop();
    kv.close();
    await Promise.all([legacy, upgrades]);
    flushStdout();
    Deno.exit(0);
  };
  if (worker !== null) stopWhenSupervisorGone(() => stop("supervisor gone"));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    try {
      Deno.addSignalListener(signal, () => stop(signal));
    } catch {
      // Deno Deploy has no signals: it stops an instance itself, and nothing then needs a flush
      // that the idle pause has not already done.
    }
  }
}

if (import.meta.main) await main();
