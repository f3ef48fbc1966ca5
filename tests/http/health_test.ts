/**
 * /health checks the storage with a real KV read, and repeated probes share one read a second,
 * concurrent ones included, so anonymous probes cannot make a read each.
 */
import assert from "node:assert/strict";
import { meter } from "../../kv/store/meter.ts";
import { HealthProbe, PROBE_MAX_AGE_MS, WRITABLE_PROOF_MS } from "../../kv/health_probe.ts";
import { setup, type TestContext } from "../helpers.ts";

async function probe(svc: TestContext): Promise<{ status: number; body: unknown }> {
  const res = await svc.request("/health");
  return { status: res.status, body: await res.json() };
}

Deno.test("/health probes share one KV read a second", async (t) => {
  const metered = meter(await Deno.openKv(":memory:"));
  let clock = Date.parse("2030-01-01T00:00:00Z");
  await using svc = await setup({ kv: metered.kv, deps: { now: () => clock } });
  metered.reset();

  await t.step("fifty concurrent probes share one read", async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => probe(svc)));
    for (const answer of answers) assert.deepEqual(answer, { status: 200, body: { status: "ok" } });
    assert.equal(metered.usage.reads, 1);
  });

  await t.step("probes within the second answer from that read", async () => {
    for (let i = 0; i < 20; i++) {
      clock += 49;
      assert.equal((await probe(svc)).status, 200);
    }
    assert.equal(metered.usage.reads, 1);
  });

  await t.step("a result a second old is checked again", async () => {
    clock += PROBE_MAX_AGE_MS - 20 * 49 - 1;
    assert.equal((await probe(svc)).status, 200);
    assert.equal(metered.usage.reads, 1, "999 ms old");
    clock += 1;
    assert.equal((await probe(svc)).status, 200);
    assert.equal(metered.usage.reads, 2);
  });

  await t.step(
    "the check is real: a store that stops answering is reported within a second",
    async () => {
      metered.kv.close();
      assert.equal((await probe(svc)).status, 200, "the cached result is at most a second old");
      clock += PROBE_MAX_AGE_MS;
      assert.deepEqual(await probe(svc), { status: 503, body: { status: "unavailable" } });
    },
  );
});

Deno.test("/health on one worker of several: the workers share one writable proof", async (t) => {
  const metered = meter(await Deno.openKv(":memory:"));
  let clock = Date.parse("2030-01-01T00:00:00Z");
  const now = () => clock;
  // Two workers of one instance: two processes' probes on one store.
  const first = new HealthProbe(metered.kv, now);
  const second = new HealthProbe(metered.kv, now);

  await t.step("the first probe proves the store takes writes, with one tiny write", async () => {
    assert.equal(await first.status(), "ok");
    assert.equal(metered.usage.commits, 1);
  });

  await t.step("another worker's probe reads that proof and writes nothing", async () => {
    clock += WRITABLE_PROOF_MS - 1;
    assert.equal(await second.status(), "ok");
    assert.equal(metered.usage.commits, 1);
  });

  await t.step("a stale proof is renewed by whichever worker is probed next", async () => {
    clock += PROBE_MAX_AGE_MS;
    assert.equal(await second.status(), "ok");
    assert.equal(metered.usage.commits, 2);
    assert.equal(await first.status(), "ok");
    assert.equal(metered.usage.commits, 2, "the renewed proof stands for every worker");
  });
  metered.kv.close();
});
