/**
 * `deno task kv:copy` between two local files, run as the task runs: a copy killed mid-way
 * (SIGKILL) resumes where the target's marker says, and the result holds every entry exactly and
 * passes `deno task reindex --check`.
 */
import assert from "node:assert/strict";
import { seed } from "../../../scripts/seed.ts";
import { taskRunArgs } from "../../../scripts/task_line.ts";
import { meta, tasks } from "../../../kv/keyspace.ts";
import { keyId } from "../../../kv/key_id.ts";
import { setup } from "../../helpers.ts";
import { bareEnv } from "../main_process.ts";
import { startKvConnectServer } from "../kv_connect_server.ts";

function copyCommand(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [...taskRunArgs("kv:copy"), ...args],
    cwd,
    env: bareEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** `deno task reindex --check` on a store under `cwd`/data. */
function reindexCheck(cwd: string, kvPath: string): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [...taskRunArgs("reindex"), "--check"],
    cwd,
    env: bareEnv({ KV_PATH: kvPath }),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

async function run(command: Deno.Command) {
  const { code, stdout, stderr } = await command.output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** A store as the service writes it, plus values of every kind KV keeps and batch-filling sizes. */
async function makeSource(path: string): Promise<number> {
  let clock: number | null = null;
  {
    await using svc = await setup({
      kv: await Deno.openKv(path),
      deps: { now: () => clock ?? Date.now() },
    });
    await seed(svc.deps, (ms) => clock = ms, { tasks: 120 });
    svc.kv.close();
  }
  using kv = await Deno.openKv(path);
  const odd: [Deno.KvKey, unknown][] = [
    [["copy_test", "u64"], new Deno.KvU64(18_446_744_073_709_551_615n)],
    [["copy_test", "bytes"], new Uint8Array([0, 1, 2, 255])],
    [["copy_test", 1n, 2.5, true, new Uint8Array([0])], { date: new Date(0), big: -5n }],
    [["copy_test", "map"], new Map<string, unknown>([["a", new Set([1, 2])], ["b", null]])],
    [["copy_test", "undefined"], undefined],
    [["copy_test", "regexp"], /a+b/gi],
  ];
  for (let i = 0; i < 30; i++) odd.push([["copy_test", "big", i], "v".repeat(60_000)]);
  for (let i = 0; i < 60; i++) odd.push([["copy_test", "long", i, "k".repeat(2000)], i]);
  for (const [key, value] of odd) await kv.set(key, value);
  return (await Array.fromAsync(kv.list({ prefix: [] }))).length;
}

Deno.test("kv:copy copies a store exactly, resumes after a kill -9, and reindex --check passes it", async (t) => {
  const cwd = await Deno.makeTempDir();
  await Deno.mkdir(`${cwd}/data`);
  const source = `${cwd}/data/source.sqlite3`;
  const target = `${cwd}/data/target.sqlite3`;
  const total = await makeSource(source);
  try {
    await t.step("a copy killed with SIGKILL after its first batch leaves a marker", async () => {
      // Paced so that it is still copying when the kill lands.
      const child = copyCommand(cwd, [
        "--from",
        source,
        "--to",
        target,
        "--batch",
        "100",
        "--rate",
        "200",
      ]).spawn();
      const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!/copied \d+ entries/.test(text)) {
        const { value, done } = await lines.read();
        assert.ok(!done, `kv:copy ended before its first batch:\n${text}`);
        text += value;
      }
      child.kill("SIGKILL");
      const status = await child.status;
      assert.equal(status.signal, "SIGKILL");
      await lines.cancel();
      await child.stdout.cancel();
      using kv = await Deno.openKv(target);
      const marker = await kv.get<{ entries: number; lastKey: Deno.KvKey }>(meta.copyProgress());
      assert.ok(marker.value, "the marker is there");
      assert.ok(marker.value.entries > 0 && marker.value.entries < total, "part was copied");
      const copied = await Array.fromAsync(kv.list({ prefix: [] }));
      assert.equal(copied.length, marker.value.entries + 1, "exactly the marked entries, and it");
    });

    await t.step("another source is refused while the copy is unfinished", async () => {
      const other = `${cwd}/data/other.sqlite3`;
      const { code, stderr } = await run(copyCommand(cwd, ["--from", other, "--to", target]));
      assert.equal(code, 2);
      assert.match(stderr, /the target holds an unfinished copy from .*source\.sqlite3/);
    });

    await t.step("running it again resumes and finishes", async () => {
      const { code, stdout, stderr } = await run(
        copyCommand(cwd, ["--from", source, "--to", target, "--batch", "300"]),
      );
      assert.equal(code, 0, stderr);
      assert.match(stdout, new RegExp(`Copied ${total} entries .*resuming an unfinished copy`));
    });

    await t.step("every entry is in the target with its exact value, and no marker", async () => {
      using from = await Deno.openKv(source);
      using to = await Deno.openKv(target);
      const want = await Array.fromAsync(from.list({ prefix: [] }));
      const got = await Array.fromAsync(to.list({ prefix: [] }));
      assert.deepEqual(got.map((e) => keyId(e.key)), want.map((e) => keyId(e.key)));
      for (const [i, entry] of got.entries()) {
        assert.deepEqual(entry.value, want[i].value, keyId(entry.key));
      }
      const u64 = await to.get(["copy_test", "u64"]);
      assert.ok(u64.value instanceof Deno.KvU64, "a KvU64 stays a KvU64");
      assert.equal(u64.value.value, 18_446_744_073_709_551_615n);
      assert.ok(got.some((e) => e.value instanceof Deno.KvU64 && e.key[0] !== "copy_test"));
      assert.equal((await to.get(meta.copyProgress())).versionstamp, null);
    });

    await t.step("deno task reindex --check finds the copy consistent", async () => {
      const { code, stdout, stderr } = await run(reindexCheck(cwd, "./data/target.sqlite3"));
      assert.equal(code, 0, stderr);
      assert.match(stdout, /Task indexes consistent: 120 task records \(\d+ live\)/);
    });

    await t.step("a copy into a store that is not empty is refused", async () => {
      const { code, stderr } = await run(copyCommand(cwd, ["--from", source, "--to", target]));
      assert.equal(code, 2);
      assert.match(stderr, /the target is not empty/);
    });
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("deno task reindex --check says when the indexes disagree with the records", async () => {
  const cwd = await Deno.makeTempDir();
  await Deno.mkdir(`${cwd}/data`);
  const path = `${cwd}/data/store.sqlite3`;
  try {
    await makeSource(path);
    const check = () => run(reindexCheck(cwd, "./data/store.sqlite3"));
    const good = await check();
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /Task indexes consistent: 120 task records \(\d+ live\)/);

    using kv = await Deno.openKv(path);
    const [record] = await Array.fromAsync(kv.list({ prefix: tasks.recordPrefix() }, { limit: 1 }));
    await kv.delete(record.key);
    const bad = await check();
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /stale index entry with no live record/);
    assert.match(bad.stdout, /Task indexes inconsistent: \d+ problems/);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("kv:copy between two KV Connect servers, each with its own token", async () => {
  const dir = await Deno.makeTempDir();
  try {
    {
      using kv = await Deno.openKv(`${dir}/from.sqlite3`);
      for (let i = 0; i < 1200; i += 100) {
        const op = kv.atomic();
        for (let j = i; j < i + 100; j++) op.set(["item", j], { j, at: new Date(j) });
        await op.commit();
      }
      await kv.set(["count"], new Deno.KvU64(1200n));
    }
    await using from = startKvConnectServer({ path: `${dir}/from.sqlite3` });
    await using to = startKvConnectServer({ path: `${dir}/to.sqlite3` });
    const { code, stdout, stderr } = await run(
      copyCommand(dir, ["--from", from.url, "--to", to.url], {
        KV_COPY_FROM_TOKEN: from.token,
        KV_COPY_TO_TOKEN: to.token,
      }),
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Copied 1201 entries .* in 3 batches/);
    assert.equal(to.counts.refused ?? 0, 0, "every batch was within denokv's limits");
    await to.close();
    using copy = await Deno.openKv(`${dir}/to.sqlite3`);
    const entries = await Array.fromAsync(copy.list({ prefix: [] }));
    assert.equal(entries.length, 1201);
    assert.deepEqual((await copy.get(["item", 1199])).value, { j: 1199, at: new Date(1199) });
    assert.deepEqual((await copy.get(["count"])).value, new Deno.KvU64(1200n));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
