/**
 * The Deno that Deno Deploy runs today (denoland/docs deploy/reference/runtime.md), installed
 * with npm into a cache outside the repository once (`.ci/run` warms it), so the Deploy tests
 * start the service on that version, not only on the one the suite runs on.
 */

/** Deploy's Deno version. */
export const DEPLOY_DENO_VERSION = "2.5.0";

function cacheDir(): string {
  const base = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? "/tmp"}/.cache`;
  return `${base}/task-marketplace/deno-${DEPLOY_DENO_VERSION}`;
}

/**
 * The path of Deploy's Deno binary: `DEPLOY_DENO` when set, else installed into the cache (the
 * Linux x64 build: the machines this suite runs on).
 */
export async function deployDeno(): Promise<string> {
  const given = Deno.env.get("DEPLOY_DENO");
  if (given) return given;
  const dir = cacheDir();
  // The binary itself, not npm's bin.cjs: that runs it under node, and a signal to node would
  // not reach the service.
  const binary = `${dir}/node_modules/@deno/linux-x64-glibc/deno`;
  try {
    await Deno.stat(binary);
    return binary;
  } catch {
    // Not installed yet.
  }
  await Deno.mkdir(dir, { recursive: true });
  const run = await new Deno.Command("npm", {
    args: ["install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"].concat(
      `deno@${DEPLOY_DENO_VERSION}`,
    ),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!run.success) {
    throw new Error(
      `npm install deno@${DEPLOY_DENO_VERSION} failed:\n${new TextDecoder().decode(run.stderr)}`,
    );
  }
  return binary;
}

/** Checks that `binary` is Deploy's version, so a wrong DEPLOY_DENO cannot pass for it. */
export async function assertDeployVersion(binary: string): Promise<void> {
  const { stdout } = await new Deno.Command(binary, { args: ["--version"] }).output();
  const line = new TextDecoder().decode(stdout).split("\n")[0];
  if (!line.startsWith(`deno ${DEPLOY_DENO_VERSION} `)) {
    throw new Error(`${binary} is ${line}, not Deno ${DEPLOY_DENO_VERSION} (Deno Deploy's)`);
  }
}

if (import.meta.main) {
  const binary = await deployDeno();
  await assertDeployVersion(binary);
  console.log(binary);
}
