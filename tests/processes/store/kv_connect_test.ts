/**
 * KV_PATH as a KV Connect URL: main.ts, started as `deno task start` starts it, serves from a
 * remote store (denokv's SQLite backend behind its KV Connect endpoints), and says clearly why
 * when the store cannot be reached.
 */
import assert from "node:assert/strict";
import { parseSettings } from "../../../domain/settings.ts";
import { tasks } from "../../../kv/keyspace.ts";
import { call, fleetSignUp } from "../fleet.ts";
import { startKvConnectServer } from "../kv_connect_server.ts";
import { bareEnv, mainCommand, startMain, stopMain, waitForListening } from "../main_process.ts";
import { taskBody } from "../../tasks/task_fixtures.ts";

const TOKEN = "kv-connect-test-token-0123";

Deno.test("KV_PATH takes an http(s) KV Connect URL, with DENO_KV_ACCESS_TOKEN", async (t) => {
  await t.step("a URL and its token are accepted; the token stays out of the settings", () => {
    const url = "https://api.deno.com/v2/databases/0a1b/connect";
    const settings = parseSettings({ KV_PATH: url, DENO_KV_ACCESS_TOKEN: TOKEN });
    assert.equal(settings.KV_PATH, url);
    assert.ok(!JSON.stringify(settings).includes(TOKEN));
  });
  await t.step("a URL without a token is refused, naming the token", () => {
    assert.throws(
      () => parseSettings({ KV_PATH: "https://kv.example.com" }),
      /DENO_KV_ACCESS_TOKEN: must be set when KV_PATH is a KV Connect URL/,
    );
  });
  await t.step("another scheme is refused, naming KV_PATH", () => {
    for (const value of ["ftp://kv.example.com/db", "file:///tmp/kv.sqlite3"]) {
      assert.throws(
        () => parseSettings({ KV_PATH: value, DENO_KV_ACCESS_TOKEN: TOKEN }),
        /KV_PATH: must be a file path, :memory: or an http\(s\) KV Connect URL/,
      );
    }
  });
  await t.step("file paths and :memory: are as before", () => {
    for (const value of [":memory:", "./data/kv.sqlite3", "/var/lib/kv.sqlite3", "kv:1.sqlite3"]) {
      assert.equal(parseSettings({ KV_PATH: value }).KV_PATH, value);
    }
  });
});

Deno.test("main.ts serves from a KV Connect server: sign-up, login, a task written and read", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/remote.sqlite3`;
  const server = startKvConnectServer({ path: file, token: TOKEN });
  const cwd = await Deno.makeTempDir();
  try {
    const child = startMain(
      cwd,
      bareEnv({
        PORT: "0",
        WORKERS: "1",
        KV_PATH: server.url,
        DENO_KV_ACCESS_TOKEN: TOKEN,
        PASSWORD_HASH_ITERATIONS: "1000",
      }),
    );
    const { port, rest } = await waitForListening(child);
    const base = `http://127.0.0.1:${port}`;
    const token = await fleetSignUp(base, `remote-${crypto.randomUUID()}@example.com`);
    const auth = { Authorization: `Bearer ${token}` };
    const created = await call(`${base}/api/v1/tasks`, {
      method: "POST",
      headers: auth,
      json: taskBody({ title: "Stored far away" }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const read = await call(`${base}/api/v1/tasks/${created.body.id}`, { headers: auth });
    assert.equal(read.status, 200);
    assert.equal(read.body.title, "Stored far away");
    const { status, stderr } = await stopMain(child, rest);
    assert.equal(status.code, 0, stderr);
    assert.ok((server.counts.atomic_write ?? 0) > 0, "writes went through KV Connect");
    assert.ok((server.counts.snapshot_read ?? 0) > 0, "reads went through KV Connect");
    assert.equal(server.counts.refused ?? 0, 0, "denokv refused nothing (its limits held)");
    assert.ok(!(await Array.fromAsync(Deno.readDir(cwd))).length, "no local store was made");
    await server.close();
    using kv = await Deno.openKv(file);
    const record = await kv.get<{ title: string }>(tasks.record(created.body.id));
    assert.equal(record.value?.title, "Stored far away", "the server's own file holds the task");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("an unreachable or refusing KV Connect URL stops main.ts with a message naming KV_PATH", async (t) => {
  const cwd = await Deno.makeTempDir();
  const dir = await Deno.makeTempDir();
  const server = startKvConnectServer({ path: `${dir}/kv.sqlite3`, token: TOKEN });
  // A port that was just free: nothing listens there.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedUrl = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  listener.close();
  const wrongToken = "not-the-token-but-long-enough";
  try {
    for (
      const [name, url, token, reason] of [
        ["nothing listens", closedUrl, TOKEN, /Connection refused/],
        ["the token is wrong", server.url, wrongToken, /401/],
      ] as const
    ) {
      await t.step(name, async () => {
        const { code, stdout, stderr } = await mainCommand(
          cwd,
          bareEnv({ WORKERS: "1", KV_PATH: url, DENO_KV_ACCESS_TOKEN: token }),
        ).output();
        const err = new TextDecoder().decode(stderr);
        assert.equal(code, 1, err);
        assert.match(err, new RegExp(`Cannot open the store at the KV Connect URL KV_PATH=${url}`));
        assert.match(err, /DENO_KV_ACCESS_TOKEN/);
        assert.match(err, reason);
        assert.ok(!err.includes(token), "the token is never printed");
        assert.equal(new TextDecoder().decode(stdout), "", "it never started listening");
      });
    }
  } finally {
    await server.close();
    await Deno.remove(cwd, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});
