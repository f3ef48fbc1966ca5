/**
 * The index's layout 1, where alerts filed by name, country or geo cell were KV list entries and
 * word pages had no stamps: read as such by an instance that found the store not yet brought up to
 * layout 2 at start-up, while it moves the alerts onto pages and stamps the word pages.
 */
import type { TaskProbes } from "../../domain/alerts/anchors.ts";
import { AppError } from "../../domain/errors.ts";
import { commit } from "../commit.ts";
import { alerts } from "../keyspace.ts";
import { keptOnHandle } from "../store/handle.ts";
import {
  decodePage,
  type IndexedAlert,
  indexedOf,
  type Place,
  type Stamp,
  stampKey,
  type StoredAlert,
} from "./pages.ts";
import { changeAlert } from "./alerts.ts";

const LIST_BATCH = 1_000;
const MEMO = Symbol("alert index layout 1");

/** The layout this code writes: every family on pages, every place with a stamp. */
export const ALERT_INDEX_LAYOUT = 2;

/** Whether this handle's store was in layout 1 when last looked at (at start-up). */
function remembered(kv: Deno.Kv): { present: boolean } {
  return keptOnHandle(kv, MEMO, () => ({ present: false }));
}

/** Whether finding must read layout 1's lists too, and the page 0 of places without a stamp. */
export function legacyPresent(kv: Deno.Kv): boolean {
  return remembered(kv).present;
}

/** Layout 1's list keys a task's probes name. */
function legacyPrefixes(probes: TaskProbes): Deno.KvKey[] {
  return [
    ...probes.names.map((n) => alerts.byNamePrefix(n)),
    ...probes.countries.map((c) => alerts.byCountryPrefix(c)),
    ...probes.geo.map((g) => alerts.byCellPrefix(g.layer, g.cell)),
  ];
}

/** The alerts layout 1 files where `probes` look, and the list batches read. */
export async function legacyCandidates(
  kv: Deno.Kv,
  probes: TaskProbes,
): Promise<{ alerts: IndexedAlert[]; reads: number }> {
  const lists = await Promise.all(
    legacyPrefixes(probes).map(async (prefix) => {
      const found: IndexedAlert[] = [];
      for await (const entry of kv.list<StoredAlert>({ prefix }, { batchSize: LIST_BATCH })) {
        found.push(indexedOf(entry.value));
      }
      return found;
    }),
  );
  return {
    alerts: lists.flat(),
    reads: lists.reduce((sum, l) => sum + 1 + Math.floor(l.length / LIST_BATCH), 0),
  };
}

async function anyUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<boolean> {
  for await (const _ of kv.list({ prefix }, { limit: 1 })) return true;
  return false;
}

/**
 * At start-up, before matching runs: whether the store is still (partly) in layout 1, remembered
 * on the handle so that this instance's finding reads it as such until it is brought up. A store
 * with no alert index at all is marked with layout 2 at once.
 */
export async function lookForLegacyAlerts(kv: Deno.Kv): Promise<boolean> {
  const mark = await kv.get<number>(alerts.layout());
  let older = false;
  if (mark.value !== ALERT_INDEX_LAYOUT) {
    older = await anyUnder(kv, alerts.legacyRoot()) || await anyUnder(kv, alerts.wordPagesRoot());
    if (!older) await commit(kv.atomic().check(mark).set(alerts.layout(), ALERT_INDEX_LAYOUT));
  }
  return remembered(kv).present = older;
}

/** Gives the word place whose page 0 is `head` a stamp, unless a write gave it one. */
async function stampWordPlace(kv: Deno.Kv, head: Deno.KvEntry<Uint8Array>): Promise<void> {
  const place: Place = { family: "w", at: head.key[1] as string };
  let page0: Deno.KvEntryMaybe<Uint8Array> = head;
  for (let round = 0; round < 10; round++) {
    const stamp = await kv.get<Stamp>(stampKey(place));
    if (stamp.value) return;
    // A place's first stamp: no instance holds a page under its tokens yet.
    const count = (decodePage(page0.value).more ?? 0) + 1;
    const value: Stamp = { seq: 1, pages: Array.from({ length: count }, () => 1) };
    if ((await commit(kv.atomic().check(stamp).check(page0).set(stamp.key, value))).ok) return;
    page0 = await kv.get<Uint8Array>(head.key);
  }
  throw new AppError("CONFLICT", "A word place changed too often to stamp");
}

/**
 * Brings the store up to layout 2: moves every alert filed in layout 1 onto pages, one alert an
 * atomic (its edit with the same filters: unfiled from its entries, filed on pages), drops entries
 * whose alert is gone, gives every word place a stamp, then marks the store; this instance's
 * finding then reads layout 2 only. Safe beside live writes and other instances doing the same.
 * Answers the alerts moved.
 */
export async function moveLegacyAlerts(kv: Deno.Kv): Promise<number> {
  const moved = new Set<string>();
  for await (const entry of kv.list<StoredAlert>({ prefix: alerts.legacyRoot() })) {
    const { id, userId } = entry.value;
    if (moved.has(id)) {
      // Its move removed what its record named; an entry left is one the record no longer names.
      await commit(kv.atomic().check(entry).delete(entry.key));
      continue;
    }
    moved.add(id);
    try {
      await changeAlert(kv, { userId, alertId: id, change: (alert) => alert });
    } catch (error) {
      if (!(error instanceof AppError && error.code === "NOT_FOUND")) throw error;
      await commit(kv.atomic().check(entry).delete(entry.key));
    }
  }
  for await (const head of kv.list<Uint8Array>({ prefix: alerts.wordPagesRoot() })) {
    if (head.key[2] === 0) await stampWordPlace(kv, head);
  }
  if (!(await anyUnder(kv, alerts.legacyRoot()))) {
    await commit(kv.atomic().set(alerts.layout(), ALERT_INDEX_LAYOUT));
    remembered(kv).present = false;
  }
  return moved.size;
}
