/**
 * Index pages as last decoded, kept on the store handle: every task reads the same hot pages
 * (`*`, common word starts, busy cities and cells), so each is parsed once, not once per task.
 * Kept under the page's token in its place's stamp (new with every write of the page), or for a
 * place written before stamps, under the page's versionstamp.
 */
import { Recent } from "../store/recent.ts";
import { decodePage, type IndexedAlert, indexedOf } from "./pages.ts";
import { keptOnHandle } from "../store/handle.ts";

/** A page decoded: the number of further pages (page 0), its candidates and its stored size. */
export interface DecodedPage {
  more: number;
  entries: readonly IndexedAlert[];
  bytes: number;
}

/**
 * Pages remembered, bounded by their stored bytes (the heap a decoded page keeps follows them):
 * the hot pages of a large index.
 */
const MAX_PAGES = 65_536;
const MAX_BYTES = 32 * 1024 * 1024;
const MEMO = Symbol("alert index pages");
const EMPTY: DecodedPage = { more: 0, entries: [], bytes: 0 };

function memoryOf(kv: Deno.Kv): Recent<DecodedPage> {
  return keptOnHandle(
    kv,
    MEMO,
    () => new Recent<DecodedPage>(MAX_PAGES, MAX_BYTES, (p) => p.bytes),
  );
}

/** The page remembered under `id` (its place, number and token), if this handle holds it. */
export function rememberedPage(kv: Deno.Kv, id: string): DecodedPage | undefined {
  return memoryOf(kv).get(id);
}

/**
 * The page `entry` holds, decoded, kept under `id` (its place, number and token) or, for a place
 * without a stamp, under its key and versionstamp: from this handle's memory when held.
 */
export function decodedPage(
  kv: Deno.Kv,
  entry: Deno.KvEntryMaybe<Uint8Array>,
  id?: string,
): DecodedPage {
  if (entry.value === null) return EMPTY;
  const memo = memoryOf(kv);
  const at = id ?? `${JSON.stringify(entry.key)}@${entry.versionstamp}`;
  let page = memo.get(at);
  if (page === undefined) {
    const read = decodePage(entry.value);
    page = {
      more: read.more ?? 0,
      entries: read.entries.map(indexedOf),
      bytes: entry.value.byteLength,
    };
    memo.set(at, page);
  }
  return page;
}
