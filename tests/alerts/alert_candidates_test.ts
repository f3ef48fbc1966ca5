/**
 * Reading the index pages (kv/alerts/candidates.ts): every alert on every page of the places a
 * task looks at is a candidate, each once; the places' stamps come first, then only the pages this
 * instance has not decoded under their tokens, so a warm instance reads the stamps alone.
 */
import assert from "node:assert/strict";
import type { TaskProbes } from "../../domain/alerts/anchors.ts";
import { findCandidates } from "../../kv/alerts/candidates.ts";
import { lookForLegacyAlerts } from "../../kv/alerts/legacy.ts";
import {
  ANY_PAGE,
  encodePage,
  pageKey,
  type Place,
  stampKey,
  type StoredAlert,
  storedAlert,
} from "../../kv/alerts/pages.ts";
import { openTestKv } from "../helpers.ts";

function alert(n: number): StoredAlert {
  return storedAlert({
    id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
    userId: "00000000-0000-4000-b000-000000000001",
    filters: { payment: "Paid" },
  });
}

const word = (at: string): Place => ({ family: "w", at });

/**
 * Files two alerts a page from `first` on `pages` pages of `place`, with a stamp giving each page
 * the token 1 unless `stamped` is false; answers their ids.
 */
async function file(
  kv: Deno.Kv,
  at: { place: Place; pages: number; first: number; stamped?: boolean },
) {
  const ids: string[] = [];
  for (let n = 0; n < at.pages; n++) {
    const entries = [alert(at.first + 2 * n), alert(at.first + 2 * n + 1)];
    ids.push(...entries.map((e) => e.id));
    const more = n === 0 && at.pages > 1 ? { more: at.pages - 1 } : {};
    await kv.set(pageKey(at.place, n), encodePage({ ...more, entries }));
  }
  if (at.stamped !== false) {
    await kv.set(stampKey(at.place), { seq: 1, pages: Array.from({ length: at.pages }, () => 1) });
  }
  return ids;
}

const probes = (words: string[], geo: TaskProbes["geo"] = []): TaskProbes => ({
  names: [],
  countries: [],
  geo,
  words,
});
/** `n` word starts, "kit" first; most have nothing filed. */
const words = (n: number) => ["kit", ...Array.from({ length: n - 1 }, (_, i) => `w${i}x`)];
const ids = (found: { alerts: { id: string }[] }) => found.alerts.map((a) => a.id).sort();

Deno.test("every page of the places a task looks at is read once cold; warm, the stamps alone", async () => {
  await using kv = await openTestKv();
  const cell: Place = { family: "g", at: "1:u09" };
  const filed = [
    ...await file(kv, { place: word(ANY_PAGE), pages: 4, first: 0 }),
    ...await file(kv, { place: word("kit"), pages: 2, first: 100 }),
    ...await file(kv, { place: cell, pages: 3, first: 200 }),
  ].sort();
  const task = probes(words(12), [{ layer: 1, cell: "u09" }]);
  // 14 stamps: two calls; 9 pages: one call.
  const cold = await findCandidates(kv, task);
  assert.deepEqual(ids(cold), filed);
  assert.equal(cold.reads, 3);
  const warm = await findCandidates(kv, task);
  assert.deepEqual(ids(warm), filed);
  assert.equal(warm.reads, 2, "the stamps only");
});

Deno.test("a page written again (a new token) is read anew, the others kept; a place grown reads its new page", async () => {
  await using kv = await openTestKv();
  await file(kv, { place: word("kit"), pages: 2, first: 0 });
  const task = probes(["kit"]);
  await findCandidates(kv, task);
  // Page 1 rewritten under a new token: read again (one call), page 0 from memory.
  await kv.set(pageKey(word("kit"), 1), encodePage({ entries: [alert(7)] }));
  await kv.set(stampKey(word("kit")), { seq: 2, pages: [1, 2] });
  const rewritten = await findCandidates(kv, task);
  assert.deepEqual(ids(rewritten), [alert(0).id, alert(1).id, alert(7).id].sort());
  assert.equal(rewritten.reads, 2);
  // A third page: its token is new, the rest held.
  await kv.set(pageKey(word("kit"), 2), encodePage({ entries: [alert(9)] }));
  await kv.set(stampKey(word("kit")), { seq: 3, pages: [1, 2, 3] });
  const grown = await findCandidates(kv, task);
  assert.deepEqual(ids(grown), [...ids(rewritten), alert(9).id].sort());
  // Nothing written since: memory only.
  const same = await findCandidates(kv, task);
  assert.deepEqual(ids(same), ids(grown));
  assert.equal(same.reads, 1);
});

Deno.test("places without a stamp are read from page 0 on while the store is not brought up to layout 2", async () => {
  await using kv = await openTestKv();
  const filed = await file(kv, { place: word("kit"), pages: 3, first: 0, stamped: false });
  assert.deepEqual(ids(await findCandidates(kv, probes(["kit"]))), [], "layout 2 only: nothing");
  assert.equal(await lookForLegacyAlerts(kv), true);
  const read = await findCandidates(kv, probes(["kit"]));
  assert.deepEqual(ids(read), filed.sort());
  assert.equal(read.reads, 3, "the stamps, page 0, then pages 1 and 2");
});
