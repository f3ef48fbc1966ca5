import assert from "node:assert/strict";
import { LeaseLedger } from "../../domain/rate_limit/lease_ledger.ts";
import type { Grant } from "../../domain/rate_limit/lease_ledger_types.ts";
import { slotIndex, type WindowDecision } from "../../domain/rate_limit/rate_window.ts";

const HOUR = 3_600_000;
const MINUTE = 60_000;
const T0 = Date.parse("2030-03-01T12:30:00.000Z");
const RULES = { windowMs: HOUR, leaseMs: 1_000, share: 8, keepMs: 10 * MINUTE };

/**
 * The shared window of one subject, standing in for KV: a grant adds its block and takes off its
 * give-backs, as the checked atomic does.
 */
class Window {
  counts = new Map<number, number>();
  add(slot: number, n: number) {
    this.counts.set(slot, (this.counts.get(slot) ?? 0) + n);
  }
  /** One decision as the limiter makes it: spend, or read, plan, commit and spend. */
  take(ledger: LeaseLedger, now: number, limit: number): WindowDecision {
    for (;;) {
      const decision = ledger.spend(now, limit);
      if (decision) return decision;
      const plan = ledger.plan({ counts: this.counts, now, limit, recheckMs: 100 });
      if (!("block" in plan)) return plan;
      this.commit(plan);
      ledger.granted(plan, now);
    }
  }
  commit(grant: Grant) {
    this.add(grant.slot, grant.block);
    for (const back of grant.backs) this.add(back.slot, -back.count);
  }
  get used() {
    let used = 0;
    for (const n of this.counts.values()) used += n;
    return used;
  }
}

Deno.test("a first block is a share of a share of what is left; blocks double while they are spent out, and are at most a share of what is left", () => {
  const window = new Window();
  const ledger = new LeaseLedger(RULES);
  const sizes: number[] = [];
  for (let i = 0; i < 60; i++) {
    const before = window.used;
    assert.ok(window.take(ledger, T0, 1000).allowed);
    if (window.used > before) sizes.push(window.used - before);
  }
  assert.deepEqual(sizes, [15, 30, 60], "1000 left: 1000 / 8 / 8, then twice each spent block");

  const near = new Window();
  near.add(slotIndex(T0, HOUR), 990);
  const late = new LeaseLedger(RULES);
  const grants: number[] = [];
  for (let i = 0; i < 12; i++) {
    const before = near.used;
    const decision = near.take(late, T0, 1000);
    assert.equal(decision.allowed, i < 10, `request ${i}`);
    if (near.used > before) grants.push(near.used - before);
  }
  assert.deepEqual(grants, Array(10).fill(1), "10 left: one unit at a time");
  assert.equal(near.used, 1000);
});

Deno.test("every admission was counted in the window first, on any interleaving of instances", () => {
  let seed = 11;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let round = 0; round < 50; round++) {
    const limit = 5 + Math.floor(random() * 200);
    const window = new Window();
    const size = 1 + Math.floor(random() * 6);
    const ledgers = Array.from({ length: size }, () => new LeaseLedger(RULES));
    let now = T0;
    let admitted = 0;
    for (let i = 0; i < 3 * limit; i++) {
      now += Math.floor(random() * 200);
      const ledger = ledgers[Math.floor(random() * ledgers.length)];
      if (window.take(ledger, now, limit).allowed) admitted++;
      assert.ok(window.used <= limit, `round ${round}: ${window.used} counted of ${limit}`);
      if (random() < 0.05) {
        // A flush somewhere: ended leases go back.
        const { backs, settle } = ledgers[Math.floor(random() * ledgers.length)].giveBack(
          now,
          false,
        );
        for (const back of backs) window.add(back.slot, -back.count);
        settle(true);
      }
    }
    const held = ledgers.reduce((sum, l) => sum + l.held, 0);
    assert.equal(
      admitted + held,
      window.used,
      `round ${round}: the window holds what was spent and held`,
    );
    assert.ok(admitted <= limit);
  }
});

Deno.test("a lease is spent only until its slot ends or its time passes", async (t) => {
  await t.step("its time: leaseMs after the grant", () => {
    const window = new Window();
    const ledger = new LeaseLedger(RULES);
    window.take(ledger, T0, 100);
    window.take(ledger, T0, 100); // a block of 2: one held
    assert.equal(ledger.held, 1);
    assert.ok(ledger.spend(T0 + 999, 100)?.allowed);
    window.take(ledger, T0 + 1_000, 100); // a block of 4: one spent, three held
    assert.equal(ledger.held, 3);
    assert.equal(ledger.spend(T0 + 2_000, 100), null, "ended: a new block is needed");
  });

  await t.step("its slot: a block granted in the last second of a minute ends with it", () => {
    const window = new Window();
    const ledger = new LeaseLedger(RULES);
    const late = T0 + MINUTE - 100;
    window.take(ledger, late, 100);
    window.take(ledger, late, 100);
    assert.equal(ledger.held, 1);
    assert.equal(ledger.spend(T0 + MINUTE, 100), null, "the next minute counts in its own slot");
  });
});

Deno.test("unspent units go back when the lease has ended, or all of them at a pause", async (t) => {
  const window = new Window();
  const ledger = new LeaseLedger(RULES);
  for (let i = 0; i < 4; i++) window.take(ledger, T0, 100); // blocks 1, 2, 4: three held
  assert.equal(ledger.held, 3);

  await t.step("a live lease is kept", () => {
    assert.deepEqual(ledger.giveBack(T0 + 500, false).backs, []);
  });

  await t.step("a failed flush keeps the units, to give back at the next one", () => {
    const failed = ledger.giveBack(T0 + 1_000, false);
    assert.deepEqual(failed.backs, [{ slot: slotIndex(T0, HOUR), count: 3 }]);
    assert.equal(ledger.returning, 3);
    failed.settle(false);
    assert.equal(ledger.returning, 0);
    assert.equal(ledger.held, 3);
    const again = ledger.giveBack(T0 + 1_100, false);
    assert.deepEqual(again.backs, [{ slot: slotIndex(T0, HOUR), count: 3 }]);
    again.settle(true);
    assert.equal(ledger.held, 0);
    assert.equal(ledger.leases, 0);
  });

  await t.step("at a pause every lease goes back, live or not", () => {
    window.take(ledger, T0 + 2_000, 100);
    window.take(ledger, T0 + 2_000, 100);
    assert.ok(ledger.held > 0);
    const { backs } = ledger.giveBack(T0 + 2_001, true);
    assert.equal(backs[0].count, ledger.returning);
    assert.equal(ledger.leases, 0);
  });

  await t.step("units of a slot about to leave the window stay counted", () => {
    const old = new LeaseLedger(RULES);
    const w = new Window();
    w.take(old, T0, 100);
    w.take(old, T0, 100);
    assert.deepEqual(old.giveBack(T0 + HOUR - 9 * MINUTE, false).backs, []);
  });
});

Deno.test("a grant takes back this instance's ended leases in its own atomic", async (t) => {
  // Share 1: a block may take all that is left, so that this instance holds the last units.
  const rules = { ...RULES, share: 1 };
  const slot = slotIndex(T0, HOUR);

  await t.step("the window is full but one unit is this instance's, unspent: it is reused", () => {
    const window = new Window();
    const ledger = new LeaseLedger(rules);
    window.take(ledger, T0, 3);
    window.take(ledger, T0, 3); // a block of 2: one held
    assert.equal(window.used, 3);
    assert.equal(ledger.held, 1);
    const plan = ledger.plan({ counts: window.counts, now: T0 + 5_000, limit: 3, recheckMs: 100 });
    assert.ok("block" in plan, "granted, not refused");
    assert.deepEqual(plan.backs, [{ slot, count: 1 }]);
    window.commit(plan);
    ledger.granted(plan, T0 + 5_000);
    assert.equal(window.used, 3);
    assert.deepEqual(ledger.giveBack(T0 + 9_000, true).backs, [{ slot, count: 1 }]);
  });

  await t.step("an atomic that failed leaves the ended lease to the next give-back", () => {
    const window = new Window();
    const ledger = new LeaseLedger(rules);
    window.take(ledger, T0, 3);
    window.take(ledger, T0, 3);
    const plan = ledger.plan({ counts: window.counts, now: T0 + 5_000, limit: 3, recheckMs: 100 });
    assert.ok("block" in plan);
    assert.deepEqual(ledger.giveBack(T0 + 5_000, false).backs, [], "taken by the plan");
    ledger.abandon(plan);
    assert.deepEqual(ledger.giveBack(T0 + 5_000, false).backs, [{ slot, count: 1 }]);
  });
});

Deno.test("a refusal is answered again without a read until its recheck, for the same limit", () => {
  const window = new Window();
  window.add(slotIndex(T0, HOUR), 5);
  const ledger = new LeaseLedger(RULES);
  const refused = window.take(ledger, T0, 5);
  assert.equal(refused.allowed, false);
  assert.equal(refused.resetAt, T0 + HOUR);
  assert.equal(refused.resetSeconds, 3600);
  assert.equal(ledger.spend(T0 + 99, 5)?.resetSeconds, 3600, "the same refusal, one read");
  assert.equal(ledger.spend(T0 + 100, 5), null, "recheck: read again");
  assert.equal(ledger.spend(T0 + 50, 6), null, "a raised limit reads again at once");
});

Deno.test("headers count what is left for the client: others' units used, this lease's free", () => {
  const window = new Window();
  window.add(slotIndex(T0 - 10 * MINUTE, HOUR), 30); // another instance's units, spent or held
  const ledger = new LeaseLedger(RULES);
  const first = window.take(ledger, T0, 100);
  assert.equal(first.remaining, 100 - 31);
  assert.equal(first.resetAt, T0 + 50 * MINUTE, "the oldest counted unit leaves then");
  window.take(ledger, T0, 100); // a block of 2: one held after this
  const third = window.take(ledger, T0, 100);
  assert.equal(third.remaining, 100 - 33);
  assert.equal(ledger.held, 0);
});
