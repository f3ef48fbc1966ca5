/**
 * The limit guard every test store and test process runs under: an atomic over the strictest
 * backend's limits fails in the tests as it would on a denokv server, never only once deployed.
 */
import assert from "node:assert/strict";
import {
  encodedKeyBytes,
  encodedValueBytes,
  KV_LIMITS,
  KvLimitError,
  limitGuard,
} from "../../kv/store/limits.ts";
import { startKvConnectServer } from "../processes/kv_connect_server.ts";

Deno.test("the guard refuses an atomic over any limit, naming it, and writes nothing", async (t) => {
  using kv = limitGuard(await Deno.openKv(":memory:"));
  const refused = async (op: Deno.AtomicOperation, pattern: RegExp) => {
    await assert.rejects(
      () => op.commit(),
      (e) => e instanceof KvLimitError && pattern.test(e.message),
    );
  };

  await t.step("10 checks commit; 11 are refused (local SQLite alone allows 100)", async () => {
    const ten = kv.atomic();
    for (let i = 0; i < 10; i++) ten.check({ key: ["c", i], versionstamp: null });
    assert.equal((await ten.set(["ten"], 1).commit()).ok, true);
    const eleven = kv.atomic();
    for (let i = 0; i < 11; i++) eleven.check({ key: ["c", i], versionstamp: null });
    await refused(eleven.set(["eleven"], 1), /11 checks \(denokv allows 10\)/);
    assert.equal((await kv.get(["eleven"])).versionstamp, null, "nothing was written");
  });

  await t.step("1,001 mutations are refused", async () => {
    const op = kv.atomic();
    for (let i = 0; i < 1001; i++) op.delete(["m", i]);
    await refused(op, /1001 mutations and enqueues/);
  });

  await t.step("more than 800 KiB in all is refused, though each value fits", async () => {
    const op = kv.atomic();
    for (let i = 0; i < 13; i++) op.set(["big", i], new Uint8Array(63 * 1024));
    await refused(op, /bytes in all \(at most 819200\)/);
  });

  await t.step("more than 80 KiB of keys is refused", async () => {
    const op = kv.atomic();
    for (let i = 0; i < 50; i++) op.delete(["long", i, "k".repeat(1800)]);
    await refused(op, /bytes of keys \(at most 81920\)/);
  });

  await t.step("a value over 64 KiB and a key over 2 KiB are refused", async () => {
    // Among many values the guard names it; alone, the store's own check refuses it first.
    const many = kv.atomic();
    for (let i = 0; i < 12; i++) many.set(["small", i], i);
    await refused(many.set(["v"], "x".repeat(65_531)), /65537-byte value/);
    await assert.rejects(() => kv.atomic().set(["v"], "x".repeat(65_531)).commit(), /too large/);
    await refused(kv.atomic().delete(["k", "x".repeat(2044)]), /2049-byte key/);
  });

  await t.step(
    "sizes are the store's own: its largest string fits and one byte more does not",
    async () => {
      assert.equal(encodedValueBytes("x".repeat(65_530)), KV_LIMITS.valueBytes);
      assert.equal((await kv.atomic().set(["v"], "x".repeat(65_530)).commit()).ok, true);
      await assert.rejects(() => kv.set(["v"], "x".repeat(65_531)), /Value too large/);
      assert.equal(encodedKeyBytes(["k", "x".repeat(2043)]), KV_LIMITS.keyBytes);
      assert.equal((await kv.atomic().set(["k", "x".repeat(2043)], 1).commit()).ok, true);
      await assert.rejects(() => kv.set(["k", "x".repeat(2044)], 1), /Key too large/);
      assert.equal(encodedKeyBytes(["a", 1, 2n, true, new Uint8Array([0, 1])]), 3 + 9 + 2 + 1 + 5);
    },
  );
});

Deno.test("the guard's limits are denokv's own: what it lets through a denokv server commits", async () => {
  const dir = await Deno.makeTempDir();
  await using server = startKvConnectServer({ path: `${dir}/kv.sqlite3` });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
  using remote = await Deno.openKv(server.url);
  const ten = remote.atomic();
  for (let i = 0; i < 10; i++) ten.check({ key: ["c", i], versionstamp: null });
  assert.equal((await ten.set(["ten"], 1).commit()).ok, true);
  const eleven = remote.atomic();
  for (let i = 0; i < 11; i++) eleven.check({ key: ["c", i], versionstamp: null });
  await assert.rejects(() => eleven.commit(), /TooManyChecks/);
  await Deno.remove(dir, { recursive: true });
});
