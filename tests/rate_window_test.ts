import assert from "node:assert/strict";
import { decide, msUntilAtMost, windowEstimate } from "../domain/rate_window.ts";

const W = 3_600_000;
const start = 100 * W; // a bucket boundary

Deno.test("the sliding-window estimate weighs the previous bucket by what the window covers", async (t) => {
  await t.step("at a bucket's start the previous bucket counts whole", () => {
    assert.equal(windowEstimate({ previous: 10, current: 0 }, start, W), 10);
  });
  await t.step("halfway through, half of it", () => {
    assert.equal(windowEstimate({ previous: 10, current: 3 }, start + W / 2, W), 8);
  });
  await t.step("the current bucket always counts whole", () => {
    assert.equal(windowEstimate({ previous: 0, current: 7 }, start + W - 1, W), 7);
  });
});

Deno.test("msUntilAtMost finds when the estimate falls to a target with no new requests", async (t) => {
  await t.step("already there: 0", () => {
    assert.equal(msUntilAtMost({ previous: 2, current: 1 }, start, W, 5), 0);
  });
  await t.step("within this bucket, as the previous one fades", () => {
    // 10 × (1 − e/W) ≤ 4 once e = 0.6 W
    assert.equal(msUntilAtMost({ previous: 10, current: 0 }, start, W, 4), 0.6 * W);
  });
  await t.step("only in the next bucket, when this one's count is over the target", () => {
    // from half past: W/2 to the boundary, then 4 × (1 − e'/W) ≤ 3 once e' = W/4
    assert.equal(msUntilAtMost({ previous: 0, current: 4 }, start + W / 2, W, 3), 0.75 * W);
  });
  await t.step("a target of 0 is reached when both buckets have slid out", () => {
    assert.equal(msUntilAtMost({ previous: 5, current: 5 }, start, W, 0), 2 * W);
  });
});

Deno.test("decide counts an allowed request and refuses at the limit", async (t) => {
  await t.step("allowed: remaining excludes this request, reset is when a unit frees", () => {
    const d = decide({ previous: 0, current: 0 }, start, W, 3);
    assert.deepEqual(d, { allowed: true, limit: 3, remaining: 2, resetSeconds: 7200 });
  });
  await t.step("refused: remaining 0 and reset is when one request fits again", () => {
    const d = decide({ previous: 0, current: 3 }, start + W / 2, W, 3);
    assert.deepEqual(d, { allowed: false, limit: 3, remaining: 0, resetSeconds: 3000 });
  });
  await t.step("a fractional estimate rounds up: 9.5 of 10 leaves nothing", () => {
    const d = decide({ previous: 1, current: 9 }, start + W / 2, W, 10);
    assert.equal(d.allowed, false);
  });
});
