import assert from "node:assert/strict";

const root = new URL("..", import.meta.url).pathname;

/** The environment a fresh shell gives: no service settings, only what Deno itself needs. */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

/**
 * Runs `main.ts` from `cwd` with the permissions of `deno task start`, so a test passing here
 * means the task's grants are enough.
 */
function startMain(cwd: string, env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${root}deno.json`,
      "--allow-net",
      "--allow-env",
      "--allow-read=./data",
      "--allow-write=./data",
      `${root}main.ts`,
    ],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads JSON log lines until one says `listening`; returns its port and the rest of the log. */
async function waitForListening(child: Deno.ChildProcess) {
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const log: string[] = [];
  while (true) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`main.ts ended before listening:\n${buffer}`);
    buffer += value;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      log.push(line);
      const record = JSON.parse(line);
      if (record.msg === "listening") {
        const rest = (async () => {
          while (true) {
            const next = await lines.read();
            if (next.done) return [...log, ...buffer.split("\n")].filter(Boolean);
            buffer += next.value;
          }
        })();
        return { port: record.port as number, rest };
      }
    }
  }
}

async function stop(child: Deno.ChildProcess, rest: Promise<string[]>) {
  child.kill("SIGTERM");
  const [status, stderr, log] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
    rest,
  ]);
  return { status, stderr, log };
}

Deno.test("main.ts starts with no settings, answers, and exits cleanly on SIGTERM", async (t) => {
  const cwd = await Deno.makeTempDir();
  const password = "correct horse battery";
  let token = "";
  let keyValue = "";

  await t.step("first run: listens, /health is ok, data lands in ./data", async () => {
    const child = startMain(cwd, bareEnv({ PORT: "0" }));
    const { port, rest } = await waitForListening(child);
    const base = `http://127.0.0.1:${port}`;

    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.ok(health.headers.get("X-Request-Id"));

    const signUp = await fetch(`${base}/v1/users`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password, firstName: "Ada" }),
    });
    assert.equal(signUp.status, 201);
    await signUp.body?.cancel();
    const login = await fetch(`${base}/v1/auth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password }),
    });
    token = (await login.json()).token;
    const key = await fetch(`${base}/api/v1/keys`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: "k", scopes: ["profile:read"], expiresInDays: 1 }),
    });
    keyValue = (await key.json()).key;
    const used = await fetch(`${base}/v1/users/me`, { headers: { "X-API-Key": keyValue } });
    assert.equal(used.status, 200);
    await used.body?.cancel();

    const { status, stderr, log } = await stop(child, rest);
    assert.equal(status.code, 0, stderr);
    assert.equal(stderr, "");
    assert.ok(log.some((l) => JSON.parse(l).msg === "shutting down"));
    const requests = log.map((l) => JSON.parse(l)).filter((r) => r.msg === "request");
    assert.equal(requests.length, 5, "one access line per request");
    assert.ok(!log.join("\n").includes(keyValue), "the key value is never logged");
    assert.ok(!log.join("\n").includes(token), "the token is never logged");
    const files = [...Deno.readDirSync(`${cwd}/data`)].map((e) => e.name);
    assert.ok(files.includes("marketplace.sqlite3"), files.join(", "));
  });

  await t.step("second run on the same ./data: the session secret was kept in KV", async () => {
    const child = startMain(cwd, bareEnv({ PORT: "0" }));
    const { port, rest } = await waitForListening(child);
    const base = `http://127.0.0.1:${port}`;
    const me = await fetch(`${base}/v1/users/me`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(me.status, 200, "a token from the first run still verifies");
    await me.body?.cancel();

    const keys = await fetch(`${base}/api/v1/keys`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const [key] = await keys.json();
    assert.notEqual(key.lastUsedAt, null, "the last use was flushed at shutdown");

    const { status } = await stop(child, rest);
    assert.equal(status.code, 0);
  });

  await Deno.remove(cwd, { recursive: true });
});

Deno.test("a bad setting stops main.ts with a non-zero exit naming the setting", async (t) => {
  const cwd = await Deno.makeTempDir();
  const cases: [string, string][] = [
    ["PORT", "abc"],
    ["TRUST_PROXY", "proxy.internal"],
    ["LOG_LEVEL", "chatty"],
  ];
  for (const [name, value] of cases) {
    await t.step(`${name}=${value}`, async () => {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          `--config=${root}deno.json`,
          "--allow-net",
          "--allow-env",
          "--allow-read=./data",
          "--allow-write=./data",
          `${root}main.ts`,
        ],
        cwd,
        env: bareEnv({ [name]: value }),
        clearEnv: true,
        stdin: "null",
      }).output();
      const err = new TextDecoder().decode(stderr);
      assert.notEqual(code, 0);
      assert.match(err, new RegExp(name));
      assert.equal(new TextDecoder().decode(stdout), "", "it never started listening");
    });
  }
  await Deno.remove(cwd, { recursive: true });
});
