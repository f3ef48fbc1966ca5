import assert from "node:assert/strict";
import { SlotLedger } from "../domain/slot_ledger.ts";
import { slotIndex } from "../domain/rate_window.ts";

const HOUR = 3_600_000;
const NOON = Date.parse("2030-03-01T12:00:30.000Z");
const slot = slotIndex(NOON, HOUR);

Deno.test("a slot ledger, alone", async (t) => {
  await t.step("an admission counts at once and waits for a flush", () => {
    const ledger = new SlotLedger(HOUR);
    assert.equal(ledger.take(NOON, 10).remaining, 9);
    assert.equal(ledger.take(NOON, 10).remaining, 8);
    assert.equal(ledger.pending, 2);
    const outbox = ledger.send();
    assert.deepEqual(outbox.writes, [{ index: slot, count: 2, first: true }]);
    outbox.settle(true);
    assert.equal(ledger.pending, 0);
  });

  await t.step("a failed flush is sent again, first write and all", () => {
    const ledger = new SlotLedger(HOUR);
    ledger.take(NOON, 10);
    ledger.send().settle(false);
    assert.deepEqual(ledger.send().writes, [{ index: slot, count: 1, first: true }]);
  });

  await t.step("only a slot's first write asks to be swept", () => {
    const ledger = new SlotLedger(HOUR);
    ledger.take(NOON, 10);
    ledger.send().settle(true);
    ledger.take(NOON, 10);
    assert.deepEqual(ledger.send().writes, [{ index: slot, count: 1, first: false }]);
  });

  await t.step("a read replaces the counts with the store's, plus what it may lack", () => {
    const ledger = new SlotLedger(HOUR);
    ledger.take(NOON, 10);
    ledger.send().settle(true);
    const read = ledger.beginRead(slot - 59, slot + 1);
    // Committed after the read began: the read may not hold it, so the ledger keeps counting it.
    ledger.take(NOON, 10);
    ledger.send().settle(true);
    read.apply(new Map([[slot, 1 + 5]]), NOON);
    assert.equal(ledger.readAt, NOON);
    assert.equal(ledger.take(NOON, 10).remaining, 10 - 6 - 1 - 1);
  });

  await t.step("a read of the newest slots leaves the older ones as they were", () => {
    const ledger = new SlotLedger(HOUR);
    ledger.beginRead(slot - 59, slot + 1).apply(new Map([[slot - 30, 4], [slot, 1]]), NOON);
    ledger.beginRead(slot - 1, slot).apply(new Map([[slot, 3]]), NOON);
    assert.equal(ledger.take(NOON, 10).remaining, 10 - 4 - 3 - 1);
  });

  await t.step("slots that left the window no longer count", () => {
    const ledger = new SlotLedger(HOUR);
    ledger.beginRead(slot - 59, slot + 1).apply(new Map([[slot - 59, 9]]), NOON);
    assert.equal(ledger.take(NOON, 10).remaining, 0);
    const later = NOON + 60_000;
    ledger.beginRead(slot - 58, slot + 2).apply(new Map(), later);
    assert.equal(
      ledger.take(later, 10).remaining,
      10 - 1 - 1,
      "the 9 left; the one admitted stays",
    );
  });
});
