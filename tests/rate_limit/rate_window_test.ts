import assert from "node:assert/strict";
import { decide, slotIndex, tally } from "../../domain/rate_limit/rate_window.ts";

const W = 3_600_000;
const MIN = 60_000;
const start = Date.parse("2030-03-01T12:00:00.000Z"); // a slot and window boundary
const slot = (at: number) => slotIndex(at, W);
const windowCount = (slots: Map<number, number>, now: number, windowMs: number) =>
  tally(slots, now, windowMs).used;
const counts = (...pairs: [at: number, count: number][]) =>
  new Map(pairs.map(([at, count]) => [slot(at), count]));

Deno.test("an hour's window counts sixty one-minute slots", async (t) => {
  await t.step("a unit counts until its minute is an hour old, then not at all", () => {
    const slots = counts([start + 59_999, 4]);
    assert.equal(windowCount(slots, start + 59 * MIN + 59_999, W), 4);
    assert.equal(windowCount(slots, start + 60 * MIN - 1, W), 4);
    assert.equal(windowCount(slots, start + 60 * MIN, W), 0);
  });
  await t.step("slots older than the window are ignored, whatever they hold", () => {
    const slots = counts([start - 1, 100], [start, 1], [start + 30 * MIN, 2]);
    assert.equal(windowCount(slots, start + 30 * MIN, W), 103);
    assert.equal(windowCount(slots, start + 59 * MIN, W), 3);
  });
});

Deno.test("decide counts an allowed request and refuses at the limit", async (t) => {
  await t.step("allowed: remaining excludes this request, reset is when the oldest leaves", () => {
    const d = decide(counts([start + 5 * MIN, 1]), start + 20 * MIN + 30_000, {
      windowMs: W,
      limit: 3,
    });
    const resetAt = start + 65 * MIN;
    assert.deepEqual(d, {
      allowed: true,
      limit: 3,
      remaining: 1,
      resetAt,
      resetSeconds: (resetAt - start - 20 * MIN - 30_000) / 1000,
    });
  });
  await t.step("alone in the window, this request is the oldest: t is at most w", () => {
    const d = decide(new Map(), start, { windowMs: W, limit: 3 });
    assert.equal(d.resetSeconds, 3600);
    assert.equal(decide(new Map(), start + 59_999, { windowMs: W, limit: 3 }).resetSeconds, 3541);
  });
  await t.step("refused: reset is when enough units have left for one more", () => {
    // 5 in the window, limit 4: two must leave, the one of 12:01 and one of 12:10.
    const slots = counts([start + MIN, 1], [start + 10 * MIN, 3], [start + 20 * MIN, 1]);
    const d = decide(slots, start + 30 * MIN, { windowMs: W, limit: 4 });
    assert.deepEqual(d, {
      allowed: false,
      limit: 4,
      remaining: 0,
      resetAt: start + 70 * MIN,
      resetSeconds: 40 * 60,
    });
  });
  await t.step("t never exceeds w, at any instant of a slot", () => {
    for (let at = start; at < start + MIN; at += 997) {
      const d = decide(new Map(), at, { windowMs: W, limit: 1 });
      assert.ok(d.resetSeconds <= 3600 && d.resetSeconds > 3540, `t=${d.resetSeconds}`);
    }
  });
});
