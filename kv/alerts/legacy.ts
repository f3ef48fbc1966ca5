/**
 * The index's layout 1, where alerts filed by name, country or geo cell were KV list entries: read
 * by finding while an instance knows some remain, and moved onto pages at start-up (docs/alerts.md).
 */
import type { TaskProbes } from "../../domain/alerts/anchors.ts";
import { AppError } from "../../domain/errors.ts";
import { commit } from "../commit.ts";
import { alerts } from "../keyspace.ts";
import { keptOnHandle } from "../store/handle.ts";
import { type Candidate, candidateOf } from "./page_memo.ts";
import type { IndexedAlert } from "./pages.ts";
import { changeAlert } from "./store.ts";

const LIST_BATCH = 1_000;
const MEMO = Symbol("alert index layout 1");

/** Whether this handle's store held entries of layout 1 when last looked at (at start-up). */
function remembered(kv: Deno.Kv): { present: boolean } {
  return keptOnHandle(kv, MEMO, () => ({ present: false }));
}

/** Whether finding must read layout 1's lists too. */
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
): Promise<{ alerts: Candidate[]; reads: number }> {
  const lists = await Promise.all(
    legacyPrefixes(probes).map(async (prefix) => {
      const found: Candidate[] = [];
      for await (const entry of kv.list<IndexedAlert>({ prefix }, { batchSize: LIST_BATCH })) {
        found.push(candidateOf(entry.value));
      }
      return found;
    }),
  );
  return {
    alerts: lists.flat(),
    reads: lists.reduce((sum, l) => sum + 1 + Math.floor(l.length / LIST_BATCH), 0),
  };
}

async function anyLeft(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: alerts.legacyRoot() }, { limit: 1 })) return true;
  return false;
}

/**
 * At start-up, before matching runs: whether entries of layout 1 remain, remembered on the handle
 * so that this instance's finding reads them until they are moved.
 */
export async function lookForLegacyAlerts(kv: Deno.Kv): Promise<boolean> {
  return remembered(kv).present = await anyLeft(kv);
}

/**
 * Moves every alert filed in layout 1 onto pages, one alert an atomic (its edit with the same
 * filters: unfiled from its entries, filed on pages) and drops entries whose alert is gone; once
 * none is left, this instance's finding stops reading them. Safe beside live writes and other
 * instances doing the same. Answers the alerts moved.
 */
export async function moveLegacyAlerts(kv: Deno.Kv): Promise<number> {
  const moved = new Set<string>();
  for await (const entry of kv.list<IndexedAlert>({ prefix: alerts.legacyRoot() })) {
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
  remembered(kv).present = await anyLeft(kv);
  return moved.size;
}
