/**
 * The usage counter's sums (kv/api_keys/usage_counter.ts): every noted request is in exactly one
 * sent sum, whatever the order of notes, sends and failed flushes, and whichever key, outcome,
 * hour or day it falls in.
 */
import assert from "node:assert/strict";
import { UsageCounter } from "../../kv/api_keys/usage_counter.ts";

const HOUR = 3_600_000;
/** 23:00 UTC: the next hour is the next day. */
const T = Date.parse("2030-03-01T23:00:00.000Z");

/** Hour and day totals by key and outcome, over the sums sent. */
function totals(sent: Deno.KvMutation[][]): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const mutation of sent.flat()) {
    const id = mutation.key.slice(1).map(String).join(" ");
    const value = (mutation as { value: Deno.KvU64 }).value.value;
    sums.set(id, (sums.get(id) ?? 0n) + value);
  }
  return sums;
}

Deno.test("every request noted is in one sum sent, across sends and failed flushes", async () => {
  await using kv = await Deno.openKv(":memory:");
  let now = T;
  const counter = new UsageCounter(kv, () => now, (error) => {
    throw error;
  });
  const expected = new Map<string, bigint>();
  const count = (keyId: string, status: number, at: number) => {
    counter.note(keyId, status, at);
    const outcome = status < 400 ? "ok" : status === 429 ? "rateLimited" : "clientError";
    const hour = at - at % HOUR;
    const day = at - at % (24 * HOUR);
    for (const id of [`${keyId} hour ${hour} ${outcome}`, `${keyId} day ${day} ${outcome}`]) {
      expected.set(id, (expected.get(id) ?? 0n) + 1n);
    }
  };
  const sent: Deno.KvMutation[][] = [];
  const send = (ok: boolean) => {
    counter.release();
    const { mutations, settle } = counter.send();
    settle(ok);
    if (ok) sent.push(mutations);
  };

  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let step = 0; step < 2_000; step++) {
    const pick = random();
    if (pick < 0.02) send(true);
    else if (pick < 0.03) send(false);
    else if (pick < 0.04) now += HOUR / 2;
    else {
      const keyId = random() < 0.7 ? "k1" : "k2";
      const status = random() < 0.8 ? 200 : random() < 0.5 ? 404 : 429;
      count(keyId, status, now);
    }
  }
  send(true);
  await counter.pruned();
  assert.equal(counter.pending, 0);
  assert.deepEqual(totals(sent), expected);
});
