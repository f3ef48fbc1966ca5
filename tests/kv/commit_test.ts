import assert from "node:assert/strict";
import { atomically, commit, MAX_CHECK_ROUNDS, retryTransient } from "../../kv/commit.ts";
import { AppError } from "../../domain/errors.ts";
import { openTestKv } from "../helpers.ts";

Deno.test("the commit helper retries a busy store and nothing else", async (t) => {
  await t.step("a transient failure is retried until the call succeeds", async () => {
    let calls = 0;
    const value = await retryTransient(() => {
      calls++;
      if (calls < 4) return Promise.reject(new TypeError("database is locked"));
      return Promise.resolve("done");
    });
    assert.equal(value, "done");
    assert.equal(calls, 4);
  });

  await t.step("any other error is thrown at once, unretried", async () => {
    let calls = 0;
    await assert.rejects(
      retryTransient(() => {
        calls++;
        return Promise.reject(new TypeError("Value too large (max 65536 bytes)"));
      }),
      /Value too large/,
    );
    assert.equal(calls, 1);
  });

  await using kv = await openTestKv();
  await t.step("a failed check is handed back, never turned into success", async () => {
    await kv.set(["k"], 1);
    const stale = await kv.get(["k"]);
    await kv.set(["k"], 2);
    const result = await commit(kv.atomic().check(stale).set(["k"], 3));
    assert.equal(result.ok, false);
    assert.equal((await kv.get(["k"])).value, 2);
  });

  await t.step("atomically re-reads after a lost check and commits on fresh data", async () => {
    let rounds = 0;
    const value = await atomically("busy", async () => {
      rounds++;
      const entry = await kv.get<number>(["k"]);
      if (rounds === 1) await kv.set(["k"], 10); // someone else writes between read and commit
      return { value: entry.value! + 1, op: kv.atomic().check(entry).set(["k"], entry.value! + 1) };
    });
    assert.equal(rounds, 2);
    assert.equal(value, 11);
    assert.equal((await kv.get(["k"])).value, 11);
  });

  await t.step("checks lost on every round end as a typed 409 CONFLICT", async () => {
    let rounds = 0;
    const error = await atomically("The record changed too often", async () => {
      rounds++;
      const entry = await kv.get<number>(["k"]);
      await kv.set(["k"], rounds);
      return { value: 0, op: kv.atomic().check(entry).set(["k"], -1) };
    }).catch((e) => e);
    assert.ok(error instanceof AppError);
    assert.equal(error.code, "CONFLICT");
    assert.equal(rounds, MAX_CHECK_ROUNDS);
    assert.notEqual((await kv.get(["k"])).value, -1);
  });
});
