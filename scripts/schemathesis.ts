/**
 * `deno task schemathesis`: Schemathesis (property-based testing from /openapi.json, every check,
 * every phase) against the service started fresh on a store of its own, once with an API key of
 * every scope and once with a session token; the figures go to bench/results/schemathesis.md.
 * Schemathesis is a Python tool this project's machines cannot take from PyPI: docs/schemathesis.md
 * says how /opt/schemathesis is built from source; without it the task says so and skips.
 */
import { loadAverage, markdownTable, writeResults } from "../bench/lib/results.ts";
import { taskRunArgs } from "./task_line.ts";
import { type Identity, runTool, type ToolRun } from "./schemathesis_run.ts";

function flag(name: string): string | undefined {
  return Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=").slice(1).join("=");
}

/** How many cases per operation and phase; `--max-examples=N` changes it. */
const maxExamples = Number(flag("max-examples") ?? 25);
/** A fixed seed makes two runs of the same commit send the same cases. */
const seed = Number(flag("seed") ?? 1);
/** `--only=key` or `--only=session` runs one identity. */
const only = flag("only");
/** Whatever follows `--` goes to Schemathesis as it is (`-- --include-path-regex /v1/tasks`). */
const passThrough = Deno.args.includes("--") ? Deno.args.slice(Deno.args.indexOf("--") + 1) : [];

async function onPath(name: string): Promise<boolean> {
  const out = await new Deno.Command("sh", { args: ["-c", `command -v ${name}`], stdout: "null" })
    .output().catch(() => ({ success: false }));
  return out.success;
}

/** SCHEMATHESIS_BIN, then the venv docs/schemathesis.md builds, then whatever PATH has. */
async function findTool(): Promise<string | null> {
  const given = Deno.env.get("SCHEMATHESIS_BIN");
  if (given) return given;
  for (const path of ["/opt/schemathesis/bin/schemathesis", "/opt/schemathesis/bin/st"]) {
    if (await Deno.stat(path).then(() => true, () => false)) return path;
  }
  for (const name of ["schemathesis", "st"]) if (await onPath(name)) return name;
  return null;
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

/** A user, its session token and a key of every scope the document names. */
async function identities(base: string): Promise<Identity[]> {
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
  const all: Identity[] = [
    { name: "key", header: `X-API-Key: ${key}` },
    { name: "session", header: `Authorization: Bearer ${token}` },
  ];
  return all.filter((who) => !only || who.name === only);
}

function report(tool: string, version: string, runs: ToolRun[], load: string): string {
  const rows = runs.map((r) => [
    r.identity,
    r.exitCode,
    r.seconds,
    r.operations,
    r.cases,
    r.failures.length === 0 ? "0" : r.failures.map((f) => `${f.check} ${f.count}`).join(", "),
  ]);
  const out = [
    `${version} (\`${tool}\`), every check and phase, \`--max-examples=${maxExamples}\`, ` +
    `\`--seed=${seed}\`, one worker, against a fresh store; load before: ${load}, after: ` +
    `${loadAverage()}.`,
    "What stays and why: docs/openapi.md (Schemathesis).",
    "",
    markdownTable(
      ["identity", "exit", "seconds", "operations", "test cases", "failures by check"],
      rows,
    ),
  ];
  for (const r of runs) {
    out.push("", `### ${r.identity}: the tool's closing lines`, "", "```text", r.summary, "```");
  }
  return out.join("\n");
}

async function main() {
  const tool = await findTool();
  if (!tool) {
    console.log(
      "SKIPPED: schemathesis is not installed. PyPI is not reachable from this project's machines; " +
        "docs/schemathesis.md builds it into /opt/schemathesis from source (or set SCHEMATHESIS_BIN).",
    );
    return;
  }
  const version = new TextDecoder().decode(
    (await new Deno.Command(tool, { args: ["--version"], stdout: "piped" }).output()).stdout,
  ).trim();
  const cwd = await Deno.makeTempDir({ prefix: "schemathesis-" });
  await Deno.mkdir(`${cwd}/data`);
  const load = loadAverage();
  const { child, base } = await startService(cwd);
  const runs: ToolRun[] = [];
  try {
    for (const who of await identities(base)) {
      runs.push(
        await runTool({ tool, base, cwd, identity: who, maxExamples, seed, extra: passThrough }),
      );
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(cwd, { recursive: true });
  }
  const path = await writeResults({
    name: "schemathesis",
    command: `deno task schemathesis --max-examples=${maxExamples} --seed=${seed}` +
      (only ? ` --only=${only}` : "") + (passThrough.length ? ` -- ${passThrough.join(" ")}` : ""),
    comparedWith: "the OpenAPI document the service serves",
    body: report(tool, version, runs, load),
  });
  console.log(`figures written to ${path}`);
  Deno.exitCode = runs.some((r) => r.exitCode !== 0) ? 1 : 0;
}

if (import.meta.main) await main();
