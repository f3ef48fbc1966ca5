/**
 * Reading the word pages (kv/alerts/candidates.ts): every alert on every page of a task's word
 * prefixes and of the page every task reads (`*`) is a candidate, each once; the further pages
 * of `*` ride in the room the first `getMany` calls leave, so they cost no call when it suffices.
 */
import assert from "node:assert/strict";
import type { TaskProbes } from "../../domain/alerts/anchors.ts";
import { findCandidates } from "../../kv/alerts/candidates.ts";
import { ANY_PAGE, encodePage, type IndexedAlert } from "../../kv/alerts/pages.ts";
import { alerts } from "../../kv/keyspace.ts";
import { openTestKv } from "../helpers.ts";

function alert(n: number): IndexedAlert {
  return {
    id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
    userId: "00000000-0000-4000-b000-000000000001",
    filters: { payment: "Paid" },
  };
}

/** Files `count` alerts from `first` on `pages` pages of `prefix`; answers their ids. */
async function file(kv: Deno.Kv, at: { prefix: string; pages: number; first: number }) {
  const ids: string[] = [];
  for (let n = 0; n < at.pages; n++) {
    const entries = [alert(at.first + 2 * n), alert(at.first + 2 * n + 1)];
    ids.push(...entries.map((e) => e.id));
    const more = n === 0 && at.pages > 1 ? { more: at.pages - 1 } : {};
    await kv.set(alerts.wordPage(at.prefix, n), encodePage({ ...more, entries }));
  }
  return ids;
}

const probes = (words: string[]): TaskProbes => ({ names: [], countries: [], geo: [], words });
/** `n` word prefixes, "kit" first; most have no page. */
const words = (n: number) => ["kit", ...Array.from({ length: n - 1 }, (_, i) => `w${i}x`)];

/** A fresh store (so no remembered page counts) with `*` on 4 pages and "kit" on 2. */
async function filedStore() {
  const kv = await openTestKv();
  const filed = [
    ...await file(kv, { prefix: ANY_PAGE, pages: 4, first: 0 }),
    ...await file(kv, { prefix: "kit", pages: 2, first: 100 }),
  ].sort();
  return { kv, filed };
}

Deno.test("every page of the task's prefixes and of `*` is read; `*`'s further pages in the first calls' room", async () => {
  const cases = [
    // 12 prefixes and `*`: two calls with 7 free slots, so `*`'s pages 1-3 come with them; one
    // more call for page 1 of "kit".
    { words: words(12), reads: 3 },
    // 10 and `*`: room for `*`'s pages 1-3 in the second call; "kit" page 1 in a third.
    { words: words(10), reads: 3 },
    // 19 and `*`: no room; `*`'s pages 1-3 and "kit" page 1 in one more call.
    { words: words(19), reads: 3 },
  ];
  for (const c of cases) {
    const { kv, filed } = await filedStore();
    await using _ = kv;
    const found = await findCandidates(kv, probes(c.words));
    assert.deepEqual(found.alerts.map((a) => a.id).sort(), filed, `${c.words.length} prefixes`);
    assert.equal(found.reads, c.reads, `${c.words.length} prefixes`);
  }
  // Without "kit"'s second page, `*`'s further pages cost no call when the room holds them.
  const { kv } = await filedStore();
  await using _ = kv;
  await kv.delete(alerts.wordPage("kit", 1));
  await kv.set(alerts.wordPage("kit", 0), encodePage({ entries: [alert(100)] }));
  const ahead = await findCandidates(kv, probes(words(12)));
  assert.equal(ahead.alerts.length, 9);
  assert.equal(ahead.reads, 2, "two calls: `*`'s pages 1-3 rode in the second");
  const noRoom = await findCandidates(kv, probes(words(19)));
  assert.equal(noRoom.alerts.length, 9);
  assert.equal(noRoom.reads, 3, "no room: one more call");
});

Deno.test("a start last seen with further pages has them read ahead in the room, and only those page 0 names count", async () => {
  const { kv, filed } = await filedStore();
  await using _ = kv;
  const ids = (found: { alerts: { id: string }[] }) => found.alerts.map((a) => a.id).sort();
  // Cold: "kit"'s page 1 waits for its page 0 (a third call).
  assert.equal((await findCandidates(kv, probes(words(10)))).reads, 3);
  // Warm: `*`'s 3 further pages and "kit"'s 1 ride in the second call's 9 free slots.
  const warm = await findCandidates(kv, probes(words(10)));
  assert.deepEqual(ids(warm), filed);
  assert.equal(warm.reads, 2);
  // "kit" shrinks to one page: its old page 1 (still stored, read ahead) is not a candidate.
  await kv.set(alerts.wordPage("kit", 0), encodePage({ entries: [alert(100)] }));
  const shrunk = await findCandidates(kv, probes(words(10)));
  const gone = [101, 102, 103].map((n) => alert(n).id);
  assert.deepEqual(ids(shrunk), filed.filter((id) => !gone.includes(id)));
  // "kit" grows past what was remembered: the page not read ahead is read after.
  await kv.set(alerts.wordPage("kit", 0), encodePage({ more: 2, entries: [alert(100)] }));
  await kv.set(alerts.wordPage("kit", 2), encodePage({ entries: [alert(104)] }));
  const grown = await findCandidates(kv, probes(words(10)));
  assert.deepEqual(
    ids(grown),
    [...ids(shrunk), alert(102).id, alert(103).id, alert(104).id].sort(),
  );
  assert.equal(grown.reads, 3);
});

Deno.test("a page is decoded once per version: a rewrite is read anew, not from memory", async () => {
  await using kv = await openTestKv();
  const ids = async () => (await findCandidates(kv, probes(["kit"]))).alerts.map((x) => x.id);
  await kv.set(alerts.wordPage("kit", 0), encodePage({ entries: [alert(1)] }));
  assert.deepEqual(await ids(), [alert(1).id]);
  assert.deepEqual(await ids(), [alert(1).id], "the same version, from memory");
  await kv.set(alerts.wordPage("kit", 0), encodePage({ entries: [alert(1), alert(3)] }));
  assert.deepEqual(await ids(), [alert(1).id, alert(3).id]);
});
