/**
 * Why the store did not open, in words that name the setting and the fix: SQLite's own ("unable
 * to open database file") says neither which folder is wrong nor how.
 */
import { isKvConnectUrl } from "../../domain/settings.ts";
import { DEFAULT_KV_PATH } from "./open_store.ts";

/** The folder a local store file lies in ("." for a bare name). */
function folderOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut < 0 ? "." : cut === 0 ? "/" : path.slice(0, cut);
}

/** Why `folder` cannot hold the store, or null when it can as far as a check can tell. */
async function folderProblem(folder: string): Promise<string | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(folder);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return `does not exist: create it (mkdir -p ${folder}) or point KV_PATH at a file in a ` +
        "folder that exists";
    }
    return null;
  }
  if (!info.isDirectory) return "is not a folder: point KV_PATH at a file inside a folder";
  // SQLite writes the file, its WAL and its shared-memory index beside each other: a file the
  // folder refuses is the store it cannot open.
  try {
    const probe = await Deno.makeTempFile({ dir: folder, prefix: ".kv-write-check-" });
    await Deno.remove(probe);
    return null;
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return null;
    return `is read-only (${(error as Error).message}): the store's file and its journal are ` +
      "written there; make the folder writable or point KV_PATH at a writable one";
  }
}

/**
 * The one message start-up stops with. NotCapable means Deno's own permissions refused the path:
 * the start tasks grant ./data only, and the bare error names neither that folder nor the setting.
 */
export async function storeOpenFailure(
  kvPath: string | undefined,
  error: unknown,
): Promise<string> {
  if (isKvConnectUrl(kvPath)) {
    // Deno's words name the URL and the status; the token is never in them.
    return `Cannot open the store at the KV Connect URL KV_PATH=${kvPath}: check that the server ` +
      "is reachable, that DENO_KV_ACCESS_TOKEN is its token, and that main.ts runs with " +
      `--allow-net. (${error})`;
  }
  if (error instanceof Deno.errors.NotCapable) {
    return `Cannot open the store: KV_PATH=${kvPath} lies outside ./data, the only folder the ` +
      "service may use (deno task start and dev grant --allow-read=./data --allow-write=./data). " +
      "Put the file under ./data, or run main.ts with --allow-read=<folder> " +
      `--allow-write=<folder> naming the file's folder. (${error})`;
  }
  const file = kvPath ?? (Deno.env.get("DENO_DEPLOYMENT_ID") ? null : DEFAULT_KV_PATH);
  if (file !== null && file !== ":memory:") {
    const folder = folderOf(file);
    const problem = await folderProblem(folder);
    if (problem) {
      return `Cannot open the store: the folder ${folder} of KV_PATH=${file} ${problem}.`;
    }
  }
  return `Cannot open the store (KV_PATH=${kvPath ?? ""}): ${error}`;
}
