/**
 * Entry point: reads settings, opens Deno KV (a local file, or Deno Deploy's own store), serves
 * the app, and on SIGINT/SIGTERM stops accepting, finishes in-flight requests, flushes, closes KV.
 */
import { flushStdout } from "./domain/log.ts";
import { parseSettings, type Settings } from "./domain/settings.ts";
import { runWorkers } from "./kv/workers.ts";
import { createApp } from "./routes/app.ts";
import { FLUSH_INTERVAL_MS } from "./kv/last_used.ts";
import { SYNC_INTERVAL_MS } from "./kv/rate_limit.ts";
import { POLL_INTERVAL_MS } from "./kv/polled_cache.ts";
import { createDeps } from "./routes/deps.ts";

const DEFAULT_KV_PATH = "./data/marketplace.sqlite3";

/** Opens the store: KV_PATH when set, Deno Deploy's KV there, else a file under ./data. */
async function openStore(settings: Settings): Promise<Deno.Kv> {
  if (settings.KV_PATH) return await Deno.openKv(settings.KV_PATH);
  if (Deno.env.get("DENO_DEPLOYMENT_ID")) return await Deno.openKv();
  await Deno.mkdir("./data", { recursive: true });
  return await Deno.openKv(DEFAULT_KV_PATH);
}

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
    kv = await openStore(settings);
  } catch (error) {
    console.error(storeOpenFailure(settings.KV_PATH, error));
    Deno.exit(1);
  }
  const deps = await createDeps(kv, settings);
  const app = createApp(deps);
  // A failed flush must not become an unhandled rejection, which would end the process.
  const flush = () =>
    deps.lastUsed.flush().catch((error: Error) =>
      deps.log.error("could not record API keys' last use", {
        error: error?.message,
        stack: error?.stack,
      })
    );
  const flusher = setInterval(flush, FLUSH_INTERVAL_MS);
  const stopLimiter = deps.rateLimiter.run(
    SYNC_INTERVAL_MS,
    (error) => deps.log.error("could not sync rate-limit counters", { error: error?.message }),
  );
  const stopKeyPolls = deps.apiKeyCache.run(
    POLL_INTERVAL_MS,
    (error) => deps.log.error("could not poll API-key changes", { error: error?.message }),
  );
  const stopUserPolls = deps.userCache.run(
    POLL_INTERVAL_MS,
    (error) => deps.log.error("could not poll user changes", { error: error?.message }),
  );
  const workers = runWorkers({ kv, now: deps.now }).catch((error) =>
    deps.log.error("queue worker stopped", { error: (error as Error).message })
  );

  const server = Deno.serve({
    port: settings.PORT,
    onListen: ({ hostname, port }) => deps.log.info("listening", { hostname, port }),
  }, app.fetch);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.log.info("shutting down", { signal });
    clearInterval(flusher);
    stopKeyPolls();
    stopUserPolls();
    await server.shutdown();
    await stopLimiter().catch((error: Error) =>
      deps.log.error("could not flush rate-limit counters", { error: error?.message })
    );
    await flush();
    kv.close();
    await workers;
    flushStdout();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
}

if (import.meta.main) await main();
