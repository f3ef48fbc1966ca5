/**
 * Word pages as last decoded, kept on the store handle by key and versionstamp: every task reads
 * the same hot pages (`*`, common word starts), so each version is parsed and its filters
 * normalized once, not once per task. A versionstamp names one write, so a hit is that value.
 */
import { type AlertCriteria, alertCriteria } from "../../domain/alerts/alert.ts";
import { Recent } from "../store/recent.ts";
import { decodePage, type IndexedAlert } from "./pages.ts";
import { keptOnHandle } from "../store/handle.ts";

/** An alert the index gave, with the criteria explore's predicate reads (normalized once). */
export interface Candidate extends IndexedAlert {
  criteria: AlertCriteria;
}

/** A word page decoded: the number of further pages (page 0) and its candidates. */
export interface DecodedPage {
  more: number;
  entries: readonly Candidate[];
}

/** Pages and alerts remembered: the hot pages of a large index, a few MB of heap. */
const MAX_PAGES = 512;
const MAX_ENTRIES = 20_000;
/** Word starts whose page count is remembered. */
const MAX_COUNTS = 4096;
const MEMO = Symbol("alert word pages");
const EMPTY: DecodedPage = { more: 0, entries: [] };

/** `alert`, as decoded from the store (so ours to change), with its criteria. */
export function candidateOf(alert: IndexedAlert): Candidate {
  const candidate = alert as Candidate;
  candidate.criteria = alertCriteria(alert.filters);
  return candidate;
}

/** One handle's memory: pages by key and version; each start's count of further pages. */
interface Memory {
  pages: Recent<DecodedPage>;
  more: Recent<number>;
}

function memoryOf(kv: Deno.Kv): Memory {
  return keptOnHandle(kv, MEMO, () => ({
    pages: new Recent<DecodedPage>(MAX_PAGES, MAX_ENTRIES, (p) => 1 + p.entries.length),
    more: new Recent<number>(MAX_COUNTS, MAX_COUNTS, () => 1),
  }));
}

/** The page `entry` holds, decoded, from this handle's memory when it holds that version. */
export function decodedPage(kv: Deno.Kv, entry: Deno.KvEntryMaybe<Uint8Array>): DecodedPage {
  if (entry.value === null) return EMPTY;
  const memo = memoryOf(kv).pages;
  const id = `${JSON.stringify(entry.key)}@${entry.versionstamp}`;
  let page = memo.get(id);
  if (page === undefined) {
    const read = decodePage(entry.value);
    page = { more: read.more ?? 0, entries: read.entries.map(candidateOf) };
    memo.set(id, page);
  }
  return page;
}

/**
 * How many further pages `prefix` had when its page 0 was last read here, or undefined: a hint of
 * what to read ahead, never an answer (page 0 as read says which pages count).
 */
export function lastKnownMore(kv: Deno.Kv, prefix: string): number | undefined {
  return memoryOf(kv).more.get(prefix);
}

export function rememberMore(kv: Deno.Kv, prefix: string, more: number): void {
  memoryOf(kv).more.set(prefix, more);
}
