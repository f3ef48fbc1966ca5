/**
 * The write side of the alerts' inverted index (docs/alerts.md): an alert's anchors become list
 * entries (name, country, geo cell, any) holding its filters, or its place on a word page, read
 * ten at a time by `getMany`. Entries go in the alert's own atomic; word pages under a check.
 */
import { alertCriteria, type AlertFilters, type AlertRecord } from "../../domain/alerts/alert.ts";
import { type Anchor, anchorsOf } from "../../domain/alerts/anchors.ts";
import { alerts } from "../keyspace.ts";

/**
 * The page of the alerts filed under nothing (`any`): read with the word pages, in the same
 * `getMany`. No word holds "*" (words are letters, digits and marks).
 */
export const ANY_PAGE = "*";

/** An alert as the index holds it: enough to decide a match without reading its record. */
export interface IndexedAlert {
  id: string;
  userId: string;
  filters: AlertFilters;
}

/** Where an enabled alert is filed, kept on its record so that a change removes exactly that. */
export interface Placement {
  keys: Deno.KvKey[];
  word?: { prefix: string; page: number };
}

/** A word page: the alerts filed under the first letters; page 0 counts the pages after it. */
export interface WordPage {
  more?: number;
  entries: IndexedAlert[];
}

// Values are stored as UTF-8 JSON bytes, so their size is known exactly; under KV's 64 KiB.
export const PAGE_BYTES = 60_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodePage(page: WordPage): Uint8Array {
  return encoder.encode(JSON.stringify(page));
}

export function decodePage(bytes: Uint8Array | null): WordPage {
  return bytes ? JSON.parse(decoder.decode(bytes)) as WordPage : { entries: [] };
}

/** The word pages one atomic reads and rewrites: each read once, written back under a check. */
export class WordPages {
  readonly #kv: Deno.Kv;
  readonly #pages = new Map<string, { entry: Deno.KvEntryMaybe<Uint8Array>; page: WordPage }>();
  readonly #dirty = new Set<string>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async #read(prefix: string, n: number) {
    const id = `${n}:${prefix}`;
    let held = this.#pages.get(id);
    if (!held) {
      const entry = await this.#kv.get<Uint8Array>(alerts.wordPage(prefix, n));
      held = { entry, page: decodePage(entry.value) };
      this.#pages.set(id, held);
    }
    return { id, page: held.page };
  }

  /** Files `alert` on the first page of `prefix` with room; returns that page's number. */
  async add(prefix: string, alert: IndexedAlert): Promise<number> {
    const head = await this.#read(prefix, 0);
    const fits = (page: WordPage) =>
      encodePage({ ...page, entries: [...page.entries, alert] }).byteLength <= PAGE_BYTES;
    const last = head.page.more ?? 0;
    const tail = last === 0 ? head : await this.#read(prefix, last);
    if (fits(tail.page)) {
      tail.page.entries.push(alert);
      this.#dirty.add(tail.id);
      return last;
    }
    const next = await this.#read(prefix, last + 1);
    next.page.entries.push(alert);
    head.page.more = last + 1;
    this.#dirty.add(next.id).add(head.id);
    return last + 1;
  }

  async remove(prefix: string, n: number, alertId: string): Promise<void> {
    const held = await this.#read(prefix, n);
    held.page.entries = held.page.entries.filter((e) => e.id !== alertId);
    this.#dirty.add(held.id);
  }

  /** Adds every changed page to `op`, each under a check of the version read. */
  writeTo(op: Deno.AtomicOperation): void {
    for (const id of this.#dirty) {
      const { entry, page } = this.#pages.get(id)!;
      op.check(entry);
      if (page.entries.length === 0 && !page.more) op.delete(entry.key);
      else op.set(entry.key, encodePage(page));
    }
  }
}

export function anchorEntryKey(
  anchor: Exclude<Anchor, { kind: "word" | "any" }>,
  alertId: string,
): Deno.KvKey {
  switch (anchor.kind) {
    case "name":
      return alerts.byName(anchor.name, alertId);
    case "country":
      return alerts.byCountry(anchor.code, alertId);
    case "geo":
      return alerts.byCell(anchor.layer, anchor.cell, alertId);
  }
}

/** Files an enabled alert in `op` (word pages through `pages`); returns where. */
export async function fileAlert(
  op: Deno.AtomicOperation,
  pages: WordPages,
  alert: AlertRecord,
): Promise<Placement> {
  const indexed: IndexedAlert = { id: alert.id, userId: alert.userId, filters: alert.filters };
  const placement: Placement = { keys: [] };
  for (const anchor of anchorsOf(alertCriteria(alert.filters))) {
    if (anchor.kind === "word" || anchor.kind === "any") {
      const prefix = anchor.kind === "word" ? anchor.prefix : ANY_PAGE;
      placement.word = { prefix, page: await pages.add(prefix, indexed) };
    } else {
      const key = anchorEntryKey(anchor, alert.id);
      op.set(key, indexed);
      placement.keys.push(key);
    }
  }
  return placement;
}

/** Removes an alert from where it was filed, in `op`. */
export async function unfileAlert(
  op: Deno.AtomicOperation,
  pages: WordPages,
  alert: { id: string; placement?: Placement },
): Promise<void> {
  const placement = alert.placement;
  if (!placement) return;
  for (const key of placement.keys) op.delete(key);
  if (placement.word) await pages.remove(placement.word.prefix, placement.word.page, alert.id);
}
