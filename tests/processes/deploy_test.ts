/**
 * main.ts as Deno Deploy runs it, as near as this machine can: no KV_PATH, no file permissions,
 * no V8 flags, and the deployment's id in the environment.
 */
import assert from "node:assert/strict";
import { bareEnv, root, stopMain, waitForListening } from "./main_process.ts";

Deno.test("main.ts starts and serves with Deno Deploy's grants: net and env only, no KV_PATH", async () => {
  const id = crypto.randomUUID();
  const child = new Deno.Command(Deno.execPath(), {
    // --location gives this run's default store a place of its own (Deno.openKv() with no path).
    args: [
      "run",
      `--config=${root}deno.json`,
      "--allow-net",
      "--allow-env",
      `--location=https://deploy-test-${id}.example/`,
      `${root}main.ts`,
    ],
    cwd: await Deno.makeTempDir(),
    env: bareEnv({
      PORT: "0",
      DENO_DEPLOY: "true",
      DENO_DEPLOYMENT_ID: id,
      PASSWORD_HASH_ITERATIONS: "1000",
    }),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const { port, rest } = await waitForListening(child);
  const base = `http://127.0.0.1:${port}`;
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 200, "the project's own KV answers");
  await health.body?.cancel();
  const signUp = await fetch(`${base}/v1/users`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: `${id}@example.com`, password: "correct horse", firstName: "D" }),
  });
  assert.equal(signUp.status, 201, "a write commits");
  await signUp.body?.cancel();
  const { status, stderr } = await stopMain(child, rest);
  assert.equal(status.code, 0, stderr);
});

Deno.test("on Deno Deploy every log line goes through console, the API Deploy collects logs from", async () => {
  const script = `
    import { writeStdout } from "${root}io/log.ts";
    const log = console.log;
    let calls = 0;
    console.log = (...args) => { calls++; log(...args); };
    writeStdout('{"msg":"hello"}');
    console.error(calls);`;
  for (const [env, calls] of [[{ DENO_DEPLOY: "true" }, "1"], [{}, "0"]] as const) {
    const { stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--ext=ts", script],
      env: bareEnv(env),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(stdout), '{"msg":"hello"}\n');
    assert.equal(new TextDecoder().decode(stderr).trim(), calls, JSON.stringify(env));
  }
});
