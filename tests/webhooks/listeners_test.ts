/**
 * The shards of accounts hearing `task.matched` (kv/webhooks/listeners.ts): every endpoint change
 * that makes an account start or stop hearing it moves the account in its shard, and a store
 * written before the shards gets them built from its subscriptions.
 */
import assert from "node:assert/strict";
import type { Subscription } from "../../kv/effects.ts";
import { webhooks } from "../../kv/keyspace.ts";
import {
  buildListeners,
  hearingAmong,
  listenersBuilt,
  lookForListeners,
} from "../../kv/webhooks/listeners.ts";
import { bearer, openTestKv, signUp } from "../helpers.ts";
import { addEndpoint, workingService } from "./webhook_fixtures.ts";

Deno.test("an account is in its shard exactly while one of its enabled endpoints selects task.matched", async () => {
  await using svc = await workingService();
  const user = await signUp(svc);
  const other = await signUp(svc);
  const hears = async () => (await hearingAmong(svc.kv, [user.id, other.id])).hears;
  const expect = async (heard: boolean, why: string) =>
    assert.deepEqual(await hears(), new Map([[user.id, heard], [other.id, false]]), why);
  await expect(false, "no endpoint");
  const created = await addEndpoint(svc, user.token, {
    url: "http://127.0.0.1:9/a",
    events: ["task.created"],
  });
  await expect(false, "an endpoint not selecting it");
  const matched = await addEndpoint(svc, user.token, {
    url: "http://127.0.0.1:9/b",
    events: ["task.matched"],
  });
  await expect(true, "an endpoint selecting it");
  const patch = (id: string, json: unknown) =>
    svc.request(`/v1/webhooks/${id}`, { method: "PATCH", headers: bearer(user.token), json });
  assert.equal((await patch(matched.id, { enabled: false })).status, 200);
  await expect(false, "that endpoint switched off");
  assert.equal((await patch(created.id, { events: ["*"] })).status, 200);
  await expect(true, "the other now selecting every event");
  const removed = await svc.request(`/v1/webhooks/${created.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  assert.ok(removed.ok, String(removed.status));
  await expect(false, "deleted");
});

Deno.test("a store written before the shards has them built from its subscriptions, then marked", async () => {
  await using kv = await openTestKv();
  const ids = ["a", "b", "c", "d"].map((c) => `00000000-0000-4000-b000-00000000000${c}`);
  const subscribed = (events: string[]): Subscription => ({ events, revision: "r" });
  await kv.set(webhooks.subscription(ids[0]), subscribed(["task.matched"]));
  await kv.set(webhooks.subscription(ids[1]), subscribed(["task.created"]));
  await kv.set(webhooks.subscription(ids[2]), subscribed(["*"]));
  assert.equal(await lookForListeners(kv), false);
  assert.equal(listenersBuilt(kv), false);
  await buildListeners(kv);
  assert.equal(listenersBuilt(kv), true);
  const read = await hearingAmong(kv, ids);
  assert.deepEqual(
    read.hears,
    new Map([[ids[0], true], [ids[1], false], [ids[2], true], [ids[3], false]]),
  );
  assert.deepEqual(read.unknown, []);
  await using again = await openTestKv();
  assert.equal(await lookForListeners(again), false, "another store: not built");
  assert.equal(await lookForListeners(kv), true);
});

Deno.test("a store without subscriptions is marked built without writing a shard", async () => {
  await using kv = await openTestKv();
  await buildListeners(kv);
  assert.equal(listenersBuilt(kv), true);
  const written: string[] = [];
  for await (const entry of kv.list({ prefix: webhooks.matchedListeners(0).slice(0, -1) })) {
    written.push(String(entry.key));
  }
  assert.deepEqual(written, [], "no shard written");
  assert.equal(await lookForListeners(kv), true, "marked");
  const read = await hearingAmong(kv, ["00000000-0000-4000-b000-00000000000a"]);
  assert.deepEqual(read.hears, new Map([["00000000-0000-4000-b000-00000000000a", false]]));
});

Deno.test("workers starting together on such a store all build the shards, none fails", async () => {
  // `deno task dev` starts a worker per core on one file: each finds the shards unbuilt.
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/kv.sqlite3`;
    const ids = Array.from({ length: 300 }, () => crypto.randomUUID());
    {
      await using kv = await Deno.openKv(path);
      const op = kv.atomic();
      for (const [i, id] of ids.entries()) {
        const events = i % 3 === 0 ? ["task.created"] : ["task.matched"];
        op.set(webhooks.subscription(id), { events, revision: "r" } satisfies Subscription);
      }
      assert.ok((await op.commit()).ok);
    }
    const workers = await Promise.all([0, 1, 2].map(() => Deno.openKv(path)));
    try {
      for (const kv of workers) assert.equal(await lookForListeners(kv), false);
      await Promise.all(workers.map((kv) => buildListeners(kv)));
      for (const kv of workers) assert.equal(listenersBuilt(kv), true);
      const read = await hearingAmong(workers[0], ids);
      assert.deepEqual(read.hears, new Map(ids.map((id, i) => [id, i % 3 !== 0])));
    } finally {
      for (const kv of workers) kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
