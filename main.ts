/**
 * Entry point: reads settings, opens Deno KV (a local file, or Deno Deploy's own store), serves
 * the app, and on SIGINT/SIGTERM stops accepting, finishes in-flight requests, flushes, closes KV.
 */
import { flushStdout } from "./domain/log.ts";
import { deliveryPolicy, parseSettings, type Settings } from "./domain/settings.ts";
import { runWorkers } from "./kv/workers.ts";
import { createApp } from "./routes/app.ts";
import { backgroundJobs, createDeps } from "./routes/deps.ts";
import { openStore } from "./kv/store.ts";
import { retryTransient } from "./kv/commit.ts";
import { checkIndexLayout, INDEX_LAYOUT } from "./kv/index_layout.ts";

/**
 * Why the store did not open. NotCapable means Deno's own permissions refused the path: the start
 * tasks grant ./data only, and the bare error names neither that folder nor the setting.
 */
function storeOpenFailure(kvPath: string | undefined, error: unknown): string {
  if (!(error instanceof Deno.errors.NotCapable)) {
    return `Cannot open the store (KV_PATH=${kvPath ?? ""}): ${error}`;
  }
  return `Cannot open the store: KV_PATH=${kvPath} lies outside ./data, the only folder the ` +
    "service may use (deno task start and dev grant --allow-read=./data --allow-write=./data). " +
    "Put the file under ./data, or run main.ts with --allow-read=<folder> " +
    `--allow-write=<folder> naming the file's folder. (${error})`;
}

/** `--worker=<n>` when started as a worker of `deno task start` (scripts/start.ts), else null. */
function workerIndex(args: string[]): number | null {
  const arg = args.find((a) => a.startsWith("--worker="));
  return arg ? Number(arg.slice("--worker=".length)) : null;
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
  } catch (error) {
    console.error(storeOpenFailure(settings.KV_PATH, error));
    Deno.exit(1);
  }
  // Start-up reads race the other workers' first writes to a new file: retried like commits.
  // Read together, they cost a cold instance on Deploy one round trip before it serves.
  const [deps, layout] = await Promise.all([
    createDeps(kv, settings),
    retryTransient(() => checkIndexLayout(kv)),
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
  const app = createApp(deps);
  const background = backgroundJobs(deps);
  background.start();
  const workers = runWorkers({ kv, now: deps.now, webhooks: deliveryPolicy(settings) }).catch((
    error,
  ) => deps.log.error("queue worker stopped", { error: (error as Error).message }));

  const worker = workerIndex(Deno.args);
  const server = Deno.serve({
    port: settings.PORT,
    // Workers of `deno task start` share the port; the kernel spreads connections over them.
    reusePort: worker !== null,
    onListen: ({ hostname, port }) =>
      deps.log.info("listening", { hostname, port, pid: Deno.pid, worker }),
  }, (request, info) => {
    background.touch();
    return app.fetch(request, info);
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.log.info("shutting down", { signal });
    await server.shutdown();
    await background.stop();
    kv.close();
    await workers;
    flushStdout();
    Deno.exit(0);
  };
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
