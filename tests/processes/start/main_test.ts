import assert from "node:assert/strict";
import { rateLimits } from "../../../kv/keyspace.ts";

import {
  bareEnv,
  mainCommand,
  root,
  startMain,
  stopMain,
  waitForListening,
} from "../main_process.ts";

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
    // A bodiless POST labelled JSON is answered as one without a body, and Deno prints nothing.
    const bodiless = await fetch(`${base}/api/v1/keys/${crypto.randomUUID()}/regenerate`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    });
    assert.equal(bodiless.status, 404);
    await bodiless.body?.cancel();

    const { status, stderr, log } = await stopMain(child, rest);
    assert.equal(status.code, 0, stderr);
    assert.equal(stderr, "");
    assert.ok(log.some((l) => JSON.parse(l).msg === "shutting down"));
    const requests = log.map((l) => JSON.parse(l)).filter((r) => r.msg === "request");
    assert.equal(requests.length, 6, "one access line per request");
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

    const { status } = await stopMain(child, rest);
    assert.equal(status.code, 0);
  });

  await Deno.remove(cwd, { recursive: true });
});

/** Starts main.ts in a fresh directory with an account, a session and an API key. */
async function startWithKey() {
  const cwd = await Deno.makeTempDir();
  const child = startMain(cwd, bareEnv({ PORT: "0" }));
  const { port, rest } = await waitForListening(child);
  const base = `http://127.0.0.1:${port}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const account = { email: "grace@example.com", password: "correct horse battery" };
  await (await post("/v1/users", { ...account, firstName: "Grace" })).body?.cancel();
  const { token } = await (await post("/v1/auth/token", account)).json();
  const key = await (await post("/api/v1/keys", {
    name: "k",
    scopes: ["profile:read"],
    expiresInDays: 1,
  }, { Authorization: `Bearer ${token}` })).json();
  const use = async () => {
    const res = await fetch(`${base}/v1/users/me`, { headers: { "X-API-Key": key.key } });
    await res.body?.cancel();
    return res.status;
  };
  return { cwd, child, rest, post, account, keyId: key.id as string, use };
}

/** Sums the rate-limit slots under `prefix` in the KV file main.ts left behind. */
async function countedInFile(cwd: string, prefix: Deno.KvKey): Promise<bigint> {
  const kv = await Deno.openKv(`${cwd}/data/marketplace.sqlite3`);
  try {
    let total = 0n;
    for await (const entry of kv.list<Deno.KvU64>({ prefix })) {
      // Slots only, not the version marker that counts grants.
      if (typeof entry.key.at(-1) === "number") total += entry.value.value;
    }
    return total;
  } finally {
    kv.close();
  }
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal}: counters of requests just served are flushed to KV before exit`, async () => {
    const svc = await startWithKey();
    const statuses = await Promise.all(Array.from({ length: 5 }, svc.use));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
    // Straight away: the 100 ms sync tick has most likely not run since.
    const { status, stderr } = await stopMain(svc.child, svc.rest, signal);
    assert.equal(status.code, 0, stderr);
    assert.equal(stderr, "");
    assert.equal(await countedInFile(svc.cwd, rateLimits.prefix("api_key", svc.keyId)), 5n);
    assert.equal(await countedInFile(svc.cwd, rateLimits.prefix("session")), 1n, "key creation");
    await Deno.remove(svc.cwd, { recursive: true });
  });

  Deno.test(`${signal}: a request in flight is answered before the process exits`, async () => {
    const svc = await startWithKey();
    // A login hashes with 600,000 PBKDF2 iterations: still running when the signal arrives.
    const slowLogin = svc.post("/v1/auth/token", svc.account);
    assert.equal(await svc.use(), 200, "the server has the login in hand by now");
    const { status, stderr, log } = await stopMain(svc.child, svc.rest, signal);
    const res = await slowLogin;
    assert.equal(res.status, 200);
    assert.ok((await res.json()).token);
    assert.equal(status.code, 0, stderr);
    const lines = log.map((l) => JSON.parse(l));
    const stopAt = lines.findIndex((l) => l.msg === "shutting down");
    const loginAt = lines.findIndex((l) =>
      l.msg === "request" && l.path === "/v1/auth/token" &&
      lines.indexOf(l) > stopAt
    );
    assert.ok(stopAt >= 0 && loginAt > stopAt, "the login was answered after the signal");
    await Deno.remove(svc.cwd, { recursive: true });
  });
}

Deno.test("a bad setting stops main.ts with a non-zero exit naming the setting", async (t) => {
  const cwd = await Deno.makeTempDir();
  const cases: [string, string][] = [
    ["PORT", "abc"],
    ["TRUST_PROXY", "proxy.internal"],
    ["LOG_LEVEL", "chatty"],
    ["KV_PATH", "./data/no/such/dir/kv.sqlite3"],
  ];
  for (const [name, value] of cases) {
    await t.step(`${name}=${value}`, async () => {
      const { code, stdout, stderr } = await mainCommand(cwd, bareEnv({ [name]: value }))
        .output();
      const err = new TextDecoder().decode(stderr);
      assert.notEqual(code, 0);
      assert.match(err, new RegExp(name));
      assert.equal(new TextDecoder().decode(stdout), "", "it never started listening");
    });
  }
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("deno.json: start and dev run scripts/start.ts (dev with --watch), serve runs main.ts with narrow permissions", () => {
  const { tasks } = JSON.parse(Deno.readTextFileSync(`${root}deno.json`));
  const flags = (task: string) =>
    task.split(/\s+/).filter((w) => w.startsWith("--allow-") || w === "-A").sort();
  assert.match(tasks.start, /scripts\/start\.ts$/);
  assert.match(tasks.dev, /scripts\/start\.ts --watch$/);
  assert.match(tasks.serve, /main\.ts$/);
  assert.deepEqual(flags(tasks.serve), [
    "--allow-env",
    "--allow-net",
    "--allow-read=./data",
    "--allow-write=./data",
  ]);
});
