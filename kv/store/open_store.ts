/** Opens the service's store: the same one for the service and for its maintenance scripts. */
import { retryTransient } from "../commit.ts";

export const DEFAULT_KV_PATH = "./data/marketplace.sqlite3";

/**
 * KV_PATH when set (a file, or a KV Connect URL with DENO_KV_ACCESS_TOKEN in the environment),
 * Deno Deploy's own KV there, else a file under ./data. Workers starting together open one new
 * file at once, and setting it up takes SQLite's write lock: a "database is locked" there is
 * retried like any other.
 */
export async function openStore(kvPath: string | undefined): Promise<Deno.Kv> {
  if (kvPath) return await retryTransient(() => Deno.openKv(kvPath));
  if (Deno.env.get("DENO_DEPLOYMENT_ID")) return await Deno.openKv();
  await Deno.mkdir("./data", { recursive: true });
  return await retryTransient(() => Deno.openKv(DEFAULT_KV_PATH));
}
