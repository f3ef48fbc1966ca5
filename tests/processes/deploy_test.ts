/**
 * main.ts as Deno Deploy runs it, as near as this machine can: no KV_PATH, no file permissions,
 * no V8 flags, and the deployment's id in the environment.
 */
import assert from "node:assert/strict";
import { startReceiver } from "../webhooks/webhook_receiver.ts";
import { assertDeployVersion, DEPLOY_DENO_VERSION, deployDeno } from "./deploy_deno.ts";
import { call, fleetSignUp } from "./fleet.ts";
import { bareEnv, root, stopMain, waitForListening } from "./main_process.ts";

/**
 * Starts main.ts as Deploy would: no KV_PATH, no V8 flags, the deployment's id in the
 * environment, on `binary` (this suite's Deno or Deploy's), with `grants` and `config`.
 */
async function startAsOnDeploy(
  binary: string,
  grants: string[],
  env: Record<string, string>,
  config = `${root}deno.json`,
) {
  const id = crypto.randomUUID();
  const child = new Deno.Command(binary, {
    // --location gives this run's default store a place of its own (Deno.openKv() with no path).
    args: [
      "run",
      `--config=${config}`,
      ...grants,
      `--location=https://deploy-test-${id}.example/`,
      `${root}main.ts`,
    ],
    cwd: await Deno.makeTempDir(),
    env: bareEnv({
      PORT: "0",
      DENO_DEPLOY: "true",
      DENO_DEPLOYMENT_ID: id,
      PASSWORD_HASH_ITERATIONS: "1000",
      ...env,
    }),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const { port, rest } = await waitForListening(child);
  return { id, child, rest, base: `http://127.0.0.1:${port}` };
}

Deno.test("main.ts starts and serves with Deno Deploy's grants: net and env only, no KV_PATH", async () => {
  const { id, child, rest, base } = await startAsOnDeploy(
    Deno.execPath(),
    ["--allow-net", "--allow-env"],
    {},
  );
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

/**
 * A copy of deno.json with only `unstable` in its list: whether Deploy reads the list is not
 * documented, so the service must run on what it cannot do without.
 */
async function configWithUnstable(unstable: string[]): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify({ ...config, unstable }));
  // The same lock beside it, so the same package versions load, with no registry to reach.
  await Deno.copyFile(`${root}deno.lock`, `${dir}/deno.lock`);
  return `${dir}/deno.json`;
}

for (const unstable of [null, ["kv"]]) {
  const which = unstable ? `only --unstable-${unstable.join(",")}` : "deno.json's unstable list";
  Deno.test(`main.ts on Deploy's Deno ${DEPLOY_DENO_VERSION} with ${which}, all permissions, no KV queues: health, dashboard, docs, a webhook`, async () => {
    const config = unstable ? await configWithUnstable(unstable) : `${root}deno.json`;
    const binary = await deployDeno();
    await assertDeployVersion(binary);
    await using receiver = startReceiver();
    // Deploy grants everything and takes no --unstable flag: only deno.json's list applies. The
    // preload takes the KV queue API away, as Deploy lacks it.
    const { id, child, rest, base } = await startAsOnDeploy(
      binary,
      ["--allow-all", `--preload=${root}tests/without_kv_queues.ts`],
      { WEBHOOK_ALLOW_PRIVATE: "true" },
      config,
    );
    try {
      const health = await call(`${base}/health`);
      assert.equal(health.status, 200, JSON.stringify(health.body));
      const dashboard = await fetch(`${base}/dashboard`);
      const page = await dashboard.text();
      assert.equal(dashboard.status, 200);
      const script = page.match(/src="(\/dashboard\/app\.js\?v=\w+)"/)?.[1];
      assert.ok(script, "the page names its script");
      const app = await fetch(`${base}${script}`);
      assert.equal(app.status, 200);
      assert.match(await app.text(), /function api\(/, "the dashboard's script is served");
      const docs = await fetch(`${base}/docs`);
      assert.equal(docs.status, 200);
      assert.match(docs.headers.get("Content-Type") ?? "", /text\/html/);
      await docs.body?.cancel();

      const token = await fleetSignUp(base, `${id}@example.com`);
      const auth = { Authorization: `Bearer ${token}` };
      const hook = await call(`${base}/v1/webhooks`, {
        method: "POST",
        headers: auth,
        json: { url: receiver.url, events: ["webhook.test"] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      receiver.secrets.push(hook.body.secret);
      const sent = await call(`${base}/v1/webhooks/${hook.body.id}/test`, {
        method: "POST",
        headers: auth,
      });
      assert.ok(sent.status < 300, JSON.stringify(sent.body));
      await receiver.waitFor((r) => r.length >= 1);
      assert.equal(receiver.received[0].event.type, "webhook.test");
      assert.deepEqual(receiver.received[0].verifiedWith, [hook.body.secret]);
    } finally {
      const { status, stderr } = await stopMain(child, rest);
      assert.equal(status.code, 0, stderr);
    }
  });
}

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
