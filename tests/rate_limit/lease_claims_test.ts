/**
 * Claiming ahead (domain/rate_limit/lease_claims.ts, and the ledger's use of it) on a window that stands in
 * for KV, records included: an instance spends only what it claimed, and whatever it had not
 * claimed comes back once its lease ends, even when it dies holding it.
 */
import assert from "node:assert/strict";
import {
  type LeaseRecord,
  nextClaim,
  reclaimable,
  sliceOf,
} from "../../domain/rate_limit/lease_claims.ts";
import { LeaseLedger } from "../../domain/rate_limit/lease_ledger.ts";
import type { Grant } from "../../domain/rate_limit/lease_ledger_types.ts";
import { slotIndex, type WindowDecision } from "../../domain/rate_limit/rate_window.ts";

const HOUR = 3_600_000;
const MINUTE = 60_000;
const T0 = Date.parse("2030-03-01T12:30:00.000Z");
const SLICES = { min: 8, parts: 4 };
const RULES = {
  windowMs: HOUR,
  leaseMs: 1_000,
  share: 8,
  keepMs: 10 * MINUTE,
  slices: SLICES,
  maxReclaims: 8,
};

/** The window and the leases' records as KV holds them; atomics apply whole or not at all. */
class Window {
  counts = new Map<number, number>();
  records = new Map<string, { record: LeaseRecord; stamp: number }>();
  #stamps = 0;
  #ids = 0;
  add(slot: number, n: number) {
    this.counts.set(slot, (this.counts.get(slot) ?? 0) + n);
  }
  get used() {
    let used = 0;
    for (const n of this.counts.values()) used += n;
    return used;
  }
  /** One decision as the limiter makes it: spend, raise a claim, or read, plan, commit. */
  take(ledger: LeaseLedger, now: number, limit: number): WindowDecision {
    for (;;) {
      const decision = ledger.spend(now, limit);
      if (decision) {
        this.raise(ledger, now, false);
        return decision;
      }
      if (ledger.waitsForClaim(now)) {
        this.raise(ledger, now, true);
        continue;
      }
      const records = [...this.records.values()].map((r) => r.record);
      const plan = ledger.plan({ counts: this.counts, now, limit, recheckMs: 100, records });
      if (!("block" in plan)) return plan;
      const record = this.commit(plan);
      ledger.granted(plan, now, record);
    }
  }
  commit(grant: Grant) {
    for (const back of grant.backs) this.add(back.slot, -back.count);
    for (const reclaim of grant.reclaims) {
      assert.ok(this.records.delete(reclaim.id), "reclaimed once");
      this.add(reclaim.slot, -reclaim.count);
    }
    if (grant.block === 0) return null;
    this.add(grant.slot, grant.block);
    if (grant.claim === grant.block) return null;
    const id = `lease-${++this.#ids}`;
    const stamp = ++this.#stamps;
    const { slot, block, claim, until } = grant;
    this.records.set(id, { record: { id, slot, block, claimed: claim, until }, stamp });
    return { id, stamp: String(stamp) };
  }
  /** A flush: ended leases (all when `all`) go back, and at a pause their records are reclaimed. */
  flush(ledger: LeaseLedger, now: number, all: boolean) {
    const { backs, records, settle } = ledger.giveBack(now, all);
    for (const back of backs) this.add(back.slot, -back.count);
    settle(true);
    for (const reclaim of records) {
      if (String(this.records.get(reclaim.id)?.stamp) !== reclaim.stamp) continue;
      this.records.delete(reclaim.id);
      this.add(reclaim.slot, -reclaim.count);
      ledger.reclaimed(reclaim);
    }
  }

  /** A raise of the claim mark, checked against the record's stamp. */
  raise(ledger: LeaseLedger, now: number, force: boolean) {
    const wanted = ledger.claimWanted(now);
    const due = ledger.claimDue(now, force);
    // The check asked after every spend says exactly when a background raise would find one due.
    if (!force) assert.equal(wanted, due !== null, "claimWanted agrees with claimDue");
    if (!due) return;
    const { lease, to } = due;
    const held = this.records.get(lease.record!.id);
    if (!held || String(held.stamp) !== lease.record!.stamp) {
      ledger.claimSettled(lease, "lost");
      return;
    }
    if (to >= lease.granted) {
      this.records.delete(lease.record!.id);
      ledger.claimSettled(lease, { to, stamp: null });
      return;
    }
    held.record = { ...held.record, claimed: to };
    held.stamp = ++this.#stamps;
    ledger.claimSettled(lease, { to, stamp: String(held.stamp) });
  }
}

Deno.test("a slice is a quarter of the block, at least 8 units, and the mark rises at half a slice", () => {
  assert.equal(sliceOf(5, SLICES), 5, "a small block is claimed whole");
  assert.equal(sliceOf(20, SLICES), 8);
  assert.equal(sliceOf(100, SLICES), 25);
  assert.equal(sliceOf(100, undefined), 100, "no rule: whole");
  const lease = { granted: 100, spent: 0, claimed: 25, slice: 25 };
  assert.equal(nextClaim(lease, false), null);
  assert.equal(nextClaim({ ...lease, spent: 12 }, false), null);
  assert.equal(nextClaim({ ...lease, spent: 13 }, false), 50, "half the slice spent: one more");
  assert.equal(nextClaim({ ...lease, spent: 24 }, true), null, "forced only once all is spent");
  assert.equal(nextClaim({ ...lease, spent: 25 }, true), 50);
  assert.equal(nextClaim({ ...lease, claimed: 90, spent: 80 }, false), 100, "never past the block");
  assert.equal(nextClaim({ ...lease, claimed: 100, spent: 99 }, true), null);
});

Deno.test("a grant reclaims ended leases only, the largest first, and gives nothing of a slot about to leave", () => {
  const slot = slotIndex(T0, HOUR);
  const records: LeaseRecord[] = [
    { id: "a", slot, block: 40, claimed: 10, until: T0 + 1_000 },
    { id: "b", slot, block: 40, claimed: 30, until: T0 + 1_000 },
    { id: "c", slot, block: 40, claimed: 8, until: T0 + 5_000 },
  ];
  const at = { now: T0 + 1_000, windowMs: HOUR, keepMs: 10 * MINUTE, max: 8 };
  assert.deepEqual(reclaimable(records, at), [
    { id: "a", slot, count: 30 },
    { id: "b", slot, count: 10 },
  ]);
  assert.deepEqual(reclaimable(records, { ...at, max: 1 }).map((r) => r.id), ["a"]);
  const late = { ...at, now: T0 + HOUR - 5 * MINUTE };
  assert.deepEqual(
    reclaimable(records, late).map((r) => r.count),
    [0, 0, 0],
    "deleted, not given back: a give-back on a swept slot would wrap around",
  );
});

Deno.test("a lease is spent only as far as it has claimed; a raise lost to a reclaim ends it there", () => {
  const window = new Window();
  const ledger = new LeaseLedger({ ...RULES, lastingShare: undefined });
  window.add(slotIndex(T0, HOUR), 0);
  // Blocks double while spent out: 1000 left, first a 64th (15), then 30: both over a slice.
  for (let i = 0; i < 16; i++) assert.ok(window.take(ledger, T0, 1000).allowed);
  const [record] = [...window.records.values()].map((r) => r.record);
  assert.equal(record.block, 30);
  assert.equal(record.claimed, 8, "claimed at the grant: a slice of 8");
  assert.equal(ledger.claimedUnspent, 7);
  // Half a slice spent (4): the mark rose by a slice, ahead of need.
  for (let i = 0; i < 4; i++) window.take(ledger, T0, 1000);
  assert.equal([...window.records.values()][0].record.claimed, 16);

  // Another instance reclaims the record (its clock says the lease ended): the raise now fails.
  const other = new LeaseLedger(RULES);
  const at = T0 + 1_000;
  const taken = window.used;
  window.take(other, at, 1000);
  assert.equal(window.records.size, 1, "the old record gone, the other's new one written");
  assert.equal(window.used, taken - (30 - 16) + 15, "30 − 16 unclaimed back, a block of 15 out");
  let spent = 0;
  while (ledger.spend(T0 + 999, 1000)) {
    spent++;
    window.raise(ledger, T0 + 999, true);
  }
  assert.ok(ledger.waitsForClaim(T0 + 999) === false);
  assert.equal(5 + spent, 16, "spent up to the mark it had claimed, not one more");
});

Deno.test("instances that die holding leases: admitted never passes the limit, and all they had not claimed comes back", () => {
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let round = 0; round < 40; round++) {
    const limit = 50 + Math.floor(random() * 2000);
    const window = new Window();
    const size = 2 + Math.floor(random() * 4);
    const ledgers = Array.from({ length: size }, () => new LeaseLedger(RULES));
    const dead = new Set<LeaseLedger>();
    let stuck = 0;
    let now = T0;
    let admitted = 0;
    for (let i = 0; i < 2 * limit; i++) {
      now += Math.floor(random() * 30);
      const alive = ledgers.filter((l) => !dead.has(l));
      const ledger = alive[Math.floor(random() * alive.length)];
      if (window.take(ledger, now, limit).allowed) admitted++;
      assert.ok(window.used <= limit, `round ${round}: ${window.used} counted of ${limit}`);
      if (random() < 0.01 && alive.length > 1) {
        // Killed: nothing given back, nothing raised; its claimed, unspent units may have been spent.
        dead.add(ledger);
        stuck += ledger.claimedUnspent;
      } else if (random() < 0.05) {
        window.flush(ledger, now, false);
      }
    }
    // Every lease has ended: the living give theirs back, and a grant reclaims every record.
    now += MINUTE;
    const living = ledgers.filter((l) => !dead.has(l));
    for (const ledger of living) window.flush(ledger, now, false);
    const last = living[0];
    while (window.records.size > 0) {
      const records = [...window.records.values()].map((r) => r.record);
      const plan = last.plan({ counts: window.counts, now, limit, recheckMs: 100, records });
      assert.ok("block" in plan, `round ${round}: reclaims to make`);
      last.granted(plan, now, window.commit(plan));
      window.flush(last, now, true);
    }
    assert.ok(admitted <= limit);
    assert.equal(window.used - admitted, stuck, `round ${round}: only the dead's claimed units`);
  }
});
