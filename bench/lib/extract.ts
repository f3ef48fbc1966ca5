/** The project's code at an earlier commit, for benches that run it beside this checkout's. */

const ROOT = new URL("../..", import.meta.url).pathname;

/**
 * Extracts `paths` of the project at `ref` (via `git archive`) into a new temporary directory;
 * a path the commit does not have (a layer added later, such as `io/`) is left out.
 */
export async function extractCommit(ref: string, paths: string[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bench-base-" });
  const listed = await new Deno.Command("git", {
    args: ["ls-tree", "--name-only", ref, "--", ...paths],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  if (!listed.success) throw new Error(`could not list ${ref}`);
  const present = new TextDecoder().decode(listed.stdout).split("\n").filter((p) => p !== "");
  const archive = new Deno.Command("git", {
    args: ["archive", ref, ...present],
    cwd: ROOT,
    stdout: "piped",
  }).spawn();
  const tar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
  await archive.stdout.pipeTo(tar.stdin);
  if (!(await archive.status).success || !(await tar.status).success) {
    throw new Error(`could not extract ${ref}`);
  }
  return dir;
}

/**
 * The first of `paths` (relative to `root`) that exists there: a file an earlier commit kept
 * elsewhere (`bench/http_seed.ts` before bench/ had folders) is found where that commit has it.
 */
export function codePath(root: string, ...paths: string[]): string {
  for (const path of paths) {
    try {
      Deno.statSync(`${root}/${path}`);
      return `${root}/${path}`;
    } catch {
      // not at this commit: the next place
    }
  }
  throw new Error(`none of ${paths.join(", ")} under ${root}`);
}

/** Where a commit keeps the seed of the HTTP benches' store, newest layout first. */
export const SEED_PATHS = ["bench/datasets/http_seed.ts", "bench/http_seed.ts"];
