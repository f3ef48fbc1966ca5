/**
 * `deno task schemathesis`: Schemathesis (property-based testing from /openapi.json, every check,
 * the stateful phase over the document's links) against the service started fresh on a store of
 * its own, with an API key of every scope; the tool's summary goes to bench/results/.
 * Schemathesis is a Python tool: `pip install schemathesis` (or pipx) puts `schemathesis` on PATH.
 */
import { writeResults } from "../bench/lib/results.ts";
import { taskRunArgs } from "./task_line.ts";

/** How many cases per operation and phase; `--max-examples=N` changes it. */
const maxExamples = Number(
  Deno.args.find((a) => a.startsWith("--max-examples="))?.split("=")[1] ?? 50,
);

async function onPath(name: string): Promise<boolean> {
  const out = await new Deno.Command("sh", { args: ["-c", `command -v ${name}`], stdout: "null" })
    .output().catch(() => ({ success: false }));
  return out.success;
}

async function api(base: string, path: string, json: unknown, token?: string) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(json),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Starts `deno task serve` in a folder of its own; resolves its base URL once it listens. */
async function startService(cwd: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: taskRunArgs("serve"),
    cwd,
    env: {
      PORT: "0",
      KV_PATH: "./data/schemathesis.sqlite3",
      PASSWORD_HASH_ITERATIONS: "1000",
      RATE_LIMIT_PER_HOUR: "100000000",
      ANON_RATE_LIMIT_PER_HOUR: "100000000",
      PASSWORD_HASHES_PER_HOUR: "100000000",
      KEY_CREATION_PER_MINUTE: "100000",
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (!buffer.includes('"msg":"listening"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the service ended before listening");
    buffer += value;
  }
  const port = Number(/"port":(\d+)/.exec(buffer)![1]);
  // The rest of its log is read and dropped, so that the pipe never fills.
  (async () => {
    while (!(await reader.read()).done) { /* drained */ }
  })();
  return { child, base: `http://127.0.0.1:${port}` };
}

async function main() {
  const tool = (await onPath("schemathesis")) ? "schemathesis" : (await onPath("st")) ? "st" : null;
  if (!tool) {
    console.error(
      "schemathesis is not on PATH: `pip install schemathesis` (or `pipx install schemathesis`) " +
        "installs it; it comes from PyPI only",
    );
    Deno.exit(1);
  }
  const cwd = await Deno.makeTempDir({ prefix: "schemathesis-" });
  await Deno.mkdir(`${cwd}/data`);
  const { child, base } = await startService(cwd);
  try {
    const email = "schemathesis@example.com";
    const password = "correct horse battery";
    await api(base, "/v1/users", { email, password, firstName: "Schema" });
    const { token } = await api(base, "/v1/auth/token", { email, password });
    const doc = await (await fetch(`${base}/openapi.json`)).json();
    const scopes = doc.components.schemas.Scope.enum as string[];
    const { key } = await api(base, "/api/v1/keys", {
      name: "schemathesis",
      scopes,
      expiresInDays: 30,
    }, token);
    const started = performance.now();
    const run = await new Deno.Command(tool, {
      args: [
        "run",
        `${base}/openapi.json`,
        "--checks",
        "all",
        "--max-examples",
        String(maxExamples),
        "--header",
        `X-API-Key: ${key}`,
        "--no-color",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const seconds = Math.round((performance.now() - started) / 1000);
    const output = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
    console.log(output);
    // The tool's closing summary: its last lines name the operations, checks and failures.
    const summary = output.trim().split("\n").slice(-40).join("\n");
    const path = await writeResults({
      name: "schemathesis",
      command: `deno task schemathesis --max-examples=${maxExamples}`,
      comparedWith: "the OpenAPI document the service serves (every check Schemathesis has)",
      body: [
        `Exit code ${run.code}, ${seconds} s, against a fresh store with a key of every scope.`,
        "Remaining findings that are the tool's own limits: docs/openapi.md.",
        "",
        "```text",
        summary,
        "```",
      ].join("\n"),
    });
    console.log(`figures written to ${path}`);
    Deno.exitCode = run.code;
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(cwd, { recursive: true });
  }
}

if (import.meta.main) await main();
