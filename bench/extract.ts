/** The project's code at an earlier commit, for benches that run it beside this checkout's. */

const ROOT = new URL("..", import.meta.url).pathname;

/** Extracts `paths` of the project at `ref` (via `git archive`) into a new temporary directory. */
export async function extractCommit(ref: string, paths: string[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bench-base-" });
  const archive = new Deno.Command("git", {
    args: ["archive", ref, ...paths],
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
