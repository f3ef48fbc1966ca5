/**
 * A key changed through one instance is refused at once by another that still caches it: the
 * request's own first read carries the key's record (kv/api_keys/key_guard.ts), its commits check it, and
 * the keyed read of a task by id stays one KV read. The other instance's clock is frozen, so its
 * cache never polls its change marker: only the guard can see the change.
 */
import assert from "node:assert/strict";
import type { ApiKeyRecord } from "../../domain/api_key.ts";
import { AppError } from "../../domain/errors.ts";
import { KeyGuard } from "../../kv/api_keys/key_guard.ts";
import { apiKeys } from "../../kv/keyspace.ts";
import { meter } from "../../kv/store/meter.ts";
import { apiKey, bearer, createKey, setup, sharedInstances, signUp } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

const frozen = Date.now();

Deno.test("a key changed through one instance is refused by the next request on another", async (t) => {
  await using shared = await sharedInstances(2, { deps: { now: () => frozen } });
  const [a, b] = shared.list;
  const user = await signUp(a);
  const taskRes = await a.request("/api/v1/tasks", {
    method: "POST",
    headers: bearer(user.token),
    json: taskBody(),
  });
  const task = await taskRes.json();

  /** Every request shape, answered by B for `value`. */
  const shapes = (value: string) => [
    b.request(`/api/v1/tasks/${task.id}`, { headers: apiKey(value) }),
    b.request("/v1/users/me", { headers: apiKey(value) }),
    b.request("/api/v1/tasks", { headers: apiKey(value) }),
    b.request("/api/v1/tasks/me/created", { headers: apiKey(value) }),
    b.request("/api/v1/tasks/me/created", { method: "HEAD", headers: apiKey(value) }),
  ];
  const statuses = async (value: string) =>
    await Promise.all(
      shapes(value).map(async (p) => {
        const res = await p;
        await res.body?.cancel();
        return res.status;
      }),
    );
  const tasksOf = async () => (await a.kv.list({ prefix: ["tasks"] }).next()).done ? 0 : 1;

  await t.step(
    "revoked: every read shape and a write answer 401 and nothing is written",
    async () => {
      const key = await createKey(a, user.token, { ipWhitelist: ["203.0.113.0/24"] });
      assert.deepEqual(await statuses(key.value), [200, 200, 200, 200, 200]); // cached on B
      const revoked = await a.request(`/api/v1/keys/${key.id}`, {
        method: "DELETE",
        headers: bearer(user.token),
      });
      assert.equal(revoked.status, 200);
      assert.deepEqual(await statuses(key.value), [401, 401, 401, 401, 401]);
      const before = await tasksOf();
      const write = await b.request("/api/v1/tasks", {
        method: "POST",
        headers: apiKey(key.value),
        json: taskBody({ title: "Never written" }),
      });
      assert.equal(write.status, 401);
      assert.equal(await tasksOf(), before);
    },
  );

  await t.step("a narrowed whitelist answers 401 IP_NOT_ALLOWED at once", async () => {
    const key = await createKey(a, user.token, { ipWhitelist: ["203.0.113.0/24"] });
    assert.deepEqual(await statuses(key.value), [200, 200, 200, 200, 200]);
    const patched = await a.request(`/api/v1/keys/${key.id}`, {
      method: "PATCH",
      headers: bearer(user.token),
      json: { ipWhitelist: ["198.51.100.7"] },
    });
    assert.equal(patched.status, 200);
    const res = await b.request("/v1/users/me", { headers: apiKey(key.value) });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "IP_NOT_ALLOWED");
  });

  await t.step(
    "a change that keeps what the request needs (a new name) refuses nothing",
    async () => {
      const key = await createKey(a, user.token);
      assert.deepEqual(await statuses(key.value), [200, 200, 200, 200, 200]);
      const renamed = await a.request(`/api/v1/keys/${key.id}`, {
        method: "PATCH",
        headers: bearer(user.token),
        json: { name: "renamed" },
      });
      assert.equal(renamed.status, 200);
      assert.deepEqual(await statuses(key.value), [200, 200, 200, 200, 200]);
      const write = await b.request("/api/v1/tasks", {
        method: "POST",
        headers: apiKey(key.value),
        json: taskBody({ title: "Written after a rename" }),
      });
      assert.equal(write.status, 201);
    },
  );
});

/** A store whose next commit, once armed, waits until released: a request held mid-write. */
function gated(inner: Deno.Kv) {
  let gate: { reached: () => void; release: Promise<void> } | null = null;
  const kv = new Proxy(inner, {
    get(target, name) {
      if (name !== "atomic") {
        const value = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = async () => {
          const held = gate;
          gate = null;
          if (held) {
            held.reached();
            await held.release;
          }
          return commit();
        };
        return op;
      };
    },
  });
  return {
    kv,
    /** Holds the next commit; resolves `reached` when it arrives, lets it go on `release()`. */
    arm() {
      let release!: () => void;
      let reached!: () => void;
      const arrived = new Promise<void>((r) => reached = r);
      gate = { reached, release: new Promise<void>((r) => release = r) };
      return { arrived, release };
    },
  };
}

Deno.test("a write whose key is revoked while its request runs is not committed", async () => {
  const path = await Deno.makeTempFile({ suffix: ".sqlite3" });
  using kvA = await Deno.openKv(path);
  using kvB = await Deno.openKv(path);
  const held = gated(kvB);
  await using a = await setup({ kv: kvA, deps: { now: () => frozen } });
  await using b = await setup({ kv: held.kv, deps: { now: () => frozen } });
  const user = await signUp(a);
  const key = await createKey(a, user.token);
  assert.equal((await b.request("/v1/users/me", { headers: apiKey(key.value) })).status, 200);

  const { arrived, release } = held.arm();
  const writing = b.request("/api/v1/tasks", {
    method: "POST",
    headers: apiKey(key.value),
    json: taskBody({ title: "Held mid-write" }),
  });
  await arrived; // B has read and is about to commit
  const revoked = await a.request(`/api/v1/keys/${key.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  assert.equal(revoked.status, 200);
  release();
  const res = await writing;
  assert.equal(res.status, 401);
  assert.equal((await res.json()).code, "API_KEY_INVALID");
  const tasks = await a.request("/api/v1/tasks/me/created", { headers: bearer(user.token) });
  assert.deepEqual(await tasks.json(), []);
  await Deno.remove(path);
});

Deno.test("a keyed read of a task by id is one KV read, the key's record in it", async () => {
  using inner = await Deno.openKv(":memory:"); // closed after the service is disposed
  const metered = meter(inner);
  await using t = await setup({ kv: metered.kv, deps: { now: () => frozen } });
  const user = await signUp(t);
  const key = await createKey(t, user.token);
  const created = await t.request("/api/v1/tasks", {
    method: "POST",
    headers: bearer(user.token),
    json: taskBody(),
  });
  const { id } = await created.json();
  const read = () => t.request(`/api/v1/tasks/${id}`, { headers: apiKey(key.value) });
  assert.equal((await read()).status, 200); // the key and the author cached
  metered.reset();
  const res = await read();
  assert.equal(res.status, 200);
  assert.equal(metered.usage.reads, 1);
  assert.equal(metered.usage.commits, 0);
});

Deno.test("no commit under a key that changed while the request ran", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const record = apiKeys.record("u1", "k1");
  const base = { id: "k1", userId: "u1", name: "k" } as unknown as ApiKeyRecord;
  /** A change as kv/api_keys/api_keys.ts writes one: the record and the key's guard together. */
  const change = (key: ApiKeyRecord) =>
    kv.atomic().set(record, key).set(apiKeys.guard("k1"), true).commit();
  const guardFor = async (allow: (key: ApiKeyRecord | null) => boolean) => {
    const entry = await kv.get(apiKeys.guard("k1"));
    return new KeyGuard(kv, {
      userId: "u1",
      keyId: "k1",
      versionstamp: entry.versionstamp,
      fresh: false,
      rejudge: (now) => {
        if (!allow(now.value)) throw new AppError("API_KEY_INVALID", "revoked");
        return Promise.resolve();
      },
    });
  };
  await kv.set(record, base);

  await t.step("a refusing change: the commit throws the refusal and writes nothing", async () => {
    const guard = await guardFor((key) => key?.name !== "revoked");
    await change({ ...base, name: "revoked" });
    await assert.rejects(
      guard.kv.atomic().set(["written"], 1).commit(),
      (error: AppError) => error.code === "API_KEY_INVALID",
    );
    assert.equal((await kv.get(["written"])).value, null);
    await assert.rejects(guard.confirm(), AppError);
  });

  await t.step(
    "an allowing change: the commit goes through under the new versionstamp",
    async () => {
      await change(base);
      const guard = await guardFor(() => true);
      await change({ ...base, name: "renamed" });
      assert.ok((await guard.kv.atomic().set(["written"], 2).commit()).ok);
      assert.equal((await kv.get(["written"])).value, 2);
      await guard.confirm();
    },
  );

  await t.step("the caller's own failed check stays the caller's", async () => {
    const guard = await guardFor(() => true);
    const res = await guard.kv.atomic().check({ key: ["written"], versionstamp: null })
      .set(["written"], 3).commit();
    assert.equal(res.ok, false);
  });

  await t.step("an atomic keeps room for the key's check (10 at most in denokv)", async () => {
    const guard = await guardFor(() => true);
    const op = guard.kv.atomic();
    for (let i = 0; i < 10; i++) op.check({ key: ["c", i], versionstamp: null });
    await assert.rejects(op.commit(), /at most 9 checks/);
  });
});
