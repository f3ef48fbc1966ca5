/**
 * Stoplight Prism, the third-party validating proxy of the contract run: installed with npm into
 * a cache outside the repository (once; `deno run -A tests/processes/prism.ts` warms it, as .ci/run does),
 * started in proxy mode before a live service.
 */

/** The Prism release the run uses. */
export const PRISM = "@stoplight/prism-cli@5.16.0";

function cacheDir(): string {
  const base = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? "/tmp"}/.cache`;
  return `${base}/task-marketplace/${PRISM.replace(/[@/]/g, "_")}`;
}

/** Installs Prism unless it is there; returns its entry script. */
export async function installPrism(): Promise<string> {
  const dir = cacheDir();
  const entry = `${dir}/node_modules/@stoplight/prism-cli/dist/index.js`;
  try {
    await Deno.stat(entry);
    return entry;
  } catch {
    // Not installed yet.
  }
  await Deno.mkdir(dir, { recursive: true });
  const run = await new Deno.Command("npm", {
    args: ["install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", PRISM],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!run.success) {
    throw new Error(`npm install ${PRISM} failed:\n${new TextDecoder().decode(run.stderr)}`);
  }
  return entry;
}

/** A free local port (the proxy takes no port 0). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Prism in proxy mode on `document` before `upstream`; answers carry `sl-violations`. */
export async function startPrism(document: string, upstream: string) {
  const entry = await installPrism();
  const port = freePort();
  const child = new Deno.Command("node", {
    args: [entry, "proxy", document, upstream, "--port", String(port), "--errors=false"],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output: string[] = [];
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  // Waits for its own line saying it listens, keeping the rest of its log for a failure message.
  while (!output.join("").includes("Prism is listening")) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`Prism ended before listening:\n${output.join("")}${await stderr}`);
    output.push(value);
  }
  const drained = (async () => {
    while (!(await lines.read()).done);
  })();
  return {
    url: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await Promise.all([child.status, drained, stderr]);
    },
  };
}

if (import.meta.main) {
  const started = performance.now();
  console.log(
    `${PRISM} at ${await installPrism()} (${Math.round(performance.now() - started)} ms)`,
  );
}
