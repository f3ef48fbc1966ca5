/** Opens the service's store: the same one for the service and for its maintenance scripts. */

const DEFAULT_KV_PATH = "./data/marketplace.sqlite3";

/** KV_PATH when set, Deno Deploy's own KV there, else a file under ./data. */
export async function openStore(kvPath: string | undefined): Promise<Deno.Kv> {
  if (kvPath) return await Deno.openKv(kvPath);
  if (Deno.env.get("DENO_DEPLOYMENT_ID")) return await Deno.openKv();
  await Deno.mkdir("./data", { recursive: true });
  return await Deno.openKv(DEFAULT_KV_PATH);
}
