/**
 * Claiming ahead between instances on one store, on an injected clock (docs/rate-limits.md,
 * "Claiming ahead" and "A dead instance"): an instance spends only what it claimed, a full window
 * takes back what others hold unclaimed, and a dead instance's unclaimed units come back when its
 * lease ends. Frozen time shows that nothing but the rule brings them back.
 */
import assert from "node:assert/strict";
import { rateLimits } from "../../kv/keyspace.ts";
import { apiKey, createKey, sharedInstances, signUp, type TestContext } from "../helpers.ts";

const LIMIT = 2000;
const HALF_PAST = Date.parse("2030-03-01T12:30:00.000Z");

async function status(svc: TestContext, key: string): Promise<number> {
  const res = await svc.request("/v1/users/me", { headers: apiKey(key) });
  await res.body?.cancel();
  return res.status;
}

/** Requests through `svc` until one is refused; how many were admitted. */
async function spendAll(svc: TestContext, key: string): Promise<number> {
  let admitted = 0;
  while (await status(svc, key) === 200) admitted++;
  return admitted;
}

/** The key's lease records as stored: block and claim mark. */
async function records(kv: Deno.Kv, keyId: string) {
  const found: { block: number; claimed: number; until: number }[] = [];
  for await (const { key, value } of kv.list({ prefix: rateLimits.prefix("api_key", keyId) })) {
    if (key.length !== 5) continue;
    const { block, claimed, until } = value as (typeof found)[number];
    found.push({ block, claimed, until });
  }
  return found;
}

async function fleet(now: () => number) {
  const group = await sharedInstances(2, {
    settings: { RATE_LIMIT_PER_HOUR: LIMIT },
    deps: { now },
  });
  const [a] = group.list;
  const user = await signUp(a);
  const key = await createKey(a, user.token);
  return { group, key };
}

Deno.test("a full window takes back what another instance's live lease has not claimed", async (t) => {
  const now = HALF_PAST; // frozen: no lease ends
  const { group, key } = await fleet(() => now);
  await using _ = group;
  const [a, b] = group.list;

  await t.step(
    "A's first request leases a block that lasts its minute, a slice claimed",
    async () => {
      assert.equal(await status(a, key.value), 200);
      assert.deepEqual((await records(a.kv, key.id)).map((r) => [r.block, r.claimed]), [[31, 16]]);
    },
  );

  let byB = 0;
  await t.step("B admits all but what A claimed: A's unclaimed 15 come back to it", async () => {
    byB = await spendAll(b, key.value);
    assert.equal(byB, LIMIT - 16);
    assert.deepEqual(await records(a.kv, key.id), [], "A's record was reclaimed");
  });

  await t.step("A spends what it had claimed and not one more: the limit, exactly", async () => {
    const byA = 1 + await spendAll(a, key.value);
    assert.equal(byA, 16);
    assert.equal(byA + byB, LIMIT);
  });
});

Deno.test("an instance that stops (dies) holding a lease: its unclaimed units come back when the lease ends, its claimed ones stay counted", async (t) => {
  let now = HALF_PAST;
  const { group, key } = await fleet(() => now);
  await using _ = group;
  const [a, b] = group.list;
  /** Units counted for the key in KV. */
  const counted = async () => {
    let total = 0;
    for await (
      const { key: k, value } of b.kv.list({ prefix: rateLimits.prefix("api_key", key.id) })
    ) {
      if (typeof k[3] === "number") total += Number((value as Deno.KvU64).value);
    }
    return total;
  };
  // A's first block lasts its minute (31, 16 claimed); then it is never called again, as if killed.
  assert.equal(await status(a, key.value), 200);
  assert.equal(await counted(), 31);

  await t.step(
    "once the lease has ended, B's next grant reclaims its 15 unclaimed units",
    async () => {
      now += 60_000;
      assert.equal(await status(b, key.value), 200);
      assert.deepEqual(
        await records(b.kv, key.id),
        [{ block: 31, claimed: 16, until: HALF_PAST + 120_000 }],
        "A's record gone; B's own first block (a 64th of the 1,984 left, claimed a slice)",
      );
      assert.equal(await counted(), 16 + 31, "A's 16 claimed, and B's block");
    },
  );

  await t.step("B admits the limit less what A had claimed: exactly", async () => {
    assert.equal(1 + await spendAll(b, key.value), LIMIT - 16);
    now += 60_000;
    await b.deps.rateLimiter.sync();
    assert.equal(await counted(), LIMIT, "A's claimed, unspent units stay counted: never over");
  });
});
