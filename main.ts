/**
 * Entry point: reads settings, opens Deno KV (a local file, or Deno Deploy's own store), serves
 * the app, and on SIGINT/SIGTERM stops accepting, finishes in-flight requests, flushes, closes KV.
 */
import { parseSettings, type Settings } from "./domain/settings.ts";
import { runWorkers } from "./kv/workers.ts";
import { createApp } from "./routes/app.ts";
import { FLUSH_INTERVAL_MS } from "./kv/last_used.ts";
import { createDeps } from "./routes/deps.ts";

const DEFAULT_KV_PATH = "./data/marketplace.sqlite3";

/** Opens the store: KV_PATH when set, Deno Deploy's KV there, else a file under ./data. */
async function openStore(settings: Settings): Promise<Deno.Kv> {
  if (settings.KV_PATH) return await Deno.openKv(settings.KV_PATH);
  if (Deno.env.get("DENO_DEPLOYMENT_ID")) return await Deno.openKv();
  await Deno.mkdir("./data", { recursive: true });
  return await Deno.openKv(DEFAULT_KV_PATH);
}

async function main() {
  let settings: Settings;
  try {
    settings = parseSettings(Deno.env.toObject());
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
  const kv = await openStore(settings);
  const deps = await createDeps(kv, settings);
  const app = createApp(deps);
  const flusher = setInterval(() => deps.lastUsed.flush(), FLUSH_INTERVAL_MS);
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
    await server.shutdown();
    await deps.lastUsed.flush();
    kv.close();
    await workers;
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
}

if (import.meta.main) await main();
