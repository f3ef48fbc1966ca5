/**
 * Builders of stores in the index layouts explore has left behind, each turning today's entries
 * into what that layout wrote, so the rebuild tests start from a store an earlier release left.
 */
import { explore, meta, tasks as tasksKeys } from "../../../kv/keyspace.ts";
import { indexedWords } from "../../../kv/explore/index/indexed_words.ts";
import { toTaskListItem } from "../../../domain/tasks/task_view.ts";
import { layerOf, wordZone } from "../../../kv/explore/index/entries.ts";
import { facetOf } from "../../../kv/explore/index/facet.ts";
import {
  type PackedCard,
  type PackedDoc,
  unpackCard,
  unpackDoc,
} from "../../../kv/explore/index/card.ts";
import { geohashEncode } from "../../../domain/geo/geohash.ts";
import { paymentOf, searchTerms, type TaskRecord } from "../../../domain/tasks/task.ts";

/**
 * Gives a store what layout 5 wrote beside today's entries: every word of every task indexed
 * twice (by word, and by word and zone), function words and numbers included, and the far
 * zone's counter; with `marked`, the store says it holds layout 5, else it never said.
 */
export async function makeOlderLayout(kv: Deno.Kv, tasks: TaskRecord[], marked = false) {
  if (marked) await kv.set(meta.indexLayout(), 5);
  else await kv.delete(meta.indexLayout());
  for (const task of tasks) {
    if (task.status !== "published" || task.deletedAt !== null) continue;
    const facet = facetOf(task);
    const [lon, lat] = task.location.coordinates;
    for (const word of searchTerms(task)) {
      await kv.set([...explore.byWordOldRoot(), word, task.orderKey], facet);
      await kv.set([
        ...explore.byWordZoneRoot(),
        word,
        "near",
        geohashEncode(lon, lat, 2),
        task.orderKey,
      ], facet);
    }
  }
  await kv.set(explore.count("far"), new Deno.KvU64(3n));
}

/**
 * Turns a store's entries into what layout 6 wrote: words by word alone (no zone), each with the
 * task's whole facet, a dictionary counting by word, and the owner's payment listing carrying
 * the search words; marked 6.
 */
export async function makeLayout6(kv: Deno.Kv, tasks: TaskRecord[]) {
  await kv.set(meta.indexLayout(), 6);
  for (const root of [explore.byWordRoot(), explore.wordsPrefix(), explore.wordEpochsPrefix()]) {
    for await (const entry of kv.list({ prefix: root })) await kv.delete(entry.key);
  }
  // Cards and documents as objects.
  for (const root of ["xp_tasks", "xp_by_cell", "xp_by_point", "xp_by_country", "xp_by_name"]) {
    for await (const entry of kv.list<PackedDoc>({ prefix: [root] })) {
      const unpacked = entry.value.length === 11 ? unpackDoc(entry.value) : unpackCard(entry.value);
      await kv.set(entry.key, unpacked);
    }
  }
  const counts = new Map<string, bigint>();
  for (const task of tasks) {
    if (task.deletedAt !== null) continue;
    const terms = searchTerms(task);
    const item = toTaskListItem(task);
    await kv.set(tasksKeys.byUser(task.userId, task.orderKey), { item, terms });
    await kv.set(tasksKeys.byUserStatus(task.userId, task.status, task.orderKey), item);
    await kv.set(
      tasksKeys.byUserPayment(task.userId, paymentOf(task.budget), task.orderKey),
      { item, terms },
    );
    if (task.status !== "published") continue;
    for (const word of indexedWords(terms)) {
      await kv.set([...explore.byWordOldRoot(), word, task.orderKey], facetOf(task));
      counts.set(word, (counts.get(word) ?? 0n) + 1n);
    }
  }
  for (const [word, n] of counts) {
    await kv.set([...explore.wordsPrefix(), word], new Deno.KvU64(n));
  }
}

/**
 * Gives a store the word entries and dictionary counts layout 7 wrote and layout 8 does not: a
 * word of three letters or more that layout 8 leaves out (a stop word of its longer list, a
 * spelled-out number, a word that starts another of the task); marked 7.
 */
export async function makeLayout7(kv: Deno.Kv, tasks: TaskRecord[]) {
  await kv.set(meta.indexLayout(), 7);
  for (const task of tasks) {
    if (task.status !== "published" || task.deletedAt !== null) continue;
    const terms = searchTerms(task);
    const indexed = new Set(indexedWords(terms));
    const zone = wordZone(task.location);
    for (const word of terms) {
      if (word.length < 3 || /^\p{N}/u.test(word) || indexed.has(word)) continue;
      await kv.set([...explore.byWordRoot(), word, zone, task.orderKey], task.budget > 0);
      await kv.atomic().sum(explore.word(word, zone), 1n).commit();
    }
  }
}

/**
 * Turns a store's word entries into what layout 8 wrote: by word and zone, without the epoch,
 * and no counts by epoch; marked 8.
 */
export async function makeLayout8(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 8);
  for await (const entry of kv.list({ prefix: explore.wordEpochsPrefix() })) {
    await kv.delete(entry.key);
  }
  for await (const entry of kv.list<boolean>({ prefix: explore.byWordRoot() })) {
    if (entry.key.length !== 5) continue;
    const [root, word, , zone, orderKey] = entry.key;
    await kv.delete(entry.key);
    await kv.set([root, word, zone, orderKey], entry.value);
  }
}

/**
 * Turns a store's entries into what layout 9 wrote: the 100 and 500 km classes' cell entries by
 * their centre, in the class's own layer, without counters of the layer's own, and word entries
 * carrying the payment class alone; marked 9.
 */
export async function makeLayout9(kv: Deno.Kv, tasks: TaskRecord[]) {
  await kv.set(meta.indexLayout(), 9);
  const cards = new Map<string, unknown>();
  for await (const entry of kv.list({ prefix: explore.byCellRoot() })) {
    if (!/^r(100|500)[dx]$/.test(String(entry.key[1]))) continue;
    cards.set(String(entry.key[3]), entry.value);
    await kv.delete(entry.key);
  }
  for await (const entry of kv.list({ prefix: explore.count("cell") })) {
    if (/^r(100|500)[dx]$/.test(String(entry.key[2]))) await kv.delete(entry.key);
  }
  for (const task of tasks) {
    const card = cards.get(task.orderKey);
    if (card === undefined) continue;
    const layer = layerOf(task.location.type, task.location.radiusKm)!;
    const [lon, lat] = task.location.coordinates;
    for (const p of layer.precisions) {
      await kv.set(explore.byCell(layer.name, geohashEncode(lon, lat, p), task.orderKey), card);
    }
  }
  for await (const entry of kv.list<unknown>({ prefix: explore.byWordRoot() })) {
    if (Array.isArray(entry.value)) await kv.set(entry.key, entry.value[0]);
  }
}

/**
 * Turns a store's point entries into what layout 12 wrote: keyed by class first
 * (`["xp_by_point", class, geohash8, orderKey]`); marked 12.
 */
export async function makeLayout12(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 12);
  const root = explore.byPointRange("").start.slice(0, 1);
  for await (const entry of kv.list<PackedCard>({ prefix: root })) {
    const [, hash, orderKey] = entry.key;
    const { item } = unpackCard(entry.value);
    const layer = layerOf(item.location.type, item.location.radiusKm)!;
    await kv.delete(entry.key);
    await kv.set([...explore.byPointOldRoot(), layer.name, hash, orderKey], entry.value);
  }
}

/** Turns a store into what layout 13 wrote: no list of every class's cards; marked 13. */
export async function makeLayout13(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 13);
  for await (const entry of kv.list({ prefix: explore.newestPrefix() })) await kv.delete(entry.key);
}
