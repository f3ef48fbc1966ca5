/**
 * The alerts' index pages (docs/alerts.md): values of JSON under 60,000 bytes holding the alerts
 * filed at one place, page 0 counting the pages after it; and one atomic's writes to them.
 */
import { type AlertCriteria, alertCriteria, type AlertFilters } from "../../domain/alerts/alert.ts";
import type { Anchor } from "../../domain/alerts/anchors.ts";
import { getEntries } from "../store/get_all.ts";
import { alerts } from "../keyspace.ts";

/**
 * The place of the alerts filed under nothing (`any`): a word place every task reads with its
 * others. No word holds "*" (words are letters, digits and marks).
 */
export const ANY_PAGE = "*";

/**
 * An alert as the index holds it: its id, its owner and its criteria (normalized explore filters
 * and budget floor), members of one object, so that a page read cold costs its parse and hardly
 * more: no alert's filters are normalized again, and each alert is few objects to keep.
 */
export interface IndexedAlert extends AlertCriteria {
  id: string;
  userId: string;
}

/**
 * An entry as a page (or a list of layout 1) holds it: an alert's criteria without an empty
 * `search`; or, filed before the criteria were stored, the filters as given (normalized when read).
 */
export type StoredAlert =
  | (Omit<IndexedAlert, "search"> & { search?: string[] })
  | { id: string; userId: string; filters: AlertFilters };

/** The entry a page holds for `alert`. */
export function storedAlert(
  alert: { id: string; userId: string; filters: AlertFilters },
): StoredAlert {
  const { search, ...criteria } = alertCriteria(alert.filters);
  const entry = { id: alert.id, userId: alert.userId, ...criteria };
  return search.length > 0 ? { ...entry, search } : entry;
}

/** Shared by every alert without search words: nothing changes it. */
const NO_WORDS = Object.freeze([]) as unknown as string[];

/** `entry` as read from the store (so ours to change), as matching reads it. */
export function indexedOf(entry: StoredAlert): IndexedAlert {
  if ("filters" in entry) {
    return { id: entry.id, userId: entry.userId, ...alertCriteria(entry.filters) };
  }
  entry.search ??= NO_WORDS;
  return entry as IndexedAlert;
}

/** A place alerts are filed at: a word start or "*" (w), a name (n), a country (c), a geo cell (g). */
export interface Place {
  family: "w" | "n" | "c" | "g";
  /** The word start, name or country code; for a geo cell, "layer:cell". */
  at: string;
}

/**
 * A page: the alerts filed at a place. `cap`: the most bytes it may grow to, set by the alerts on
 * it (`pageCap`). `more`: on page 0 of a place written before stamps, the count of further pages.
 */
export interface Page {
  more?: number;
  cap?: number;
  entries: StoredAlert[];
}

export const placeId = (place: Place): string => `${place.family}/${place.at}`;

export function placeOf(anchor: Anchor): Place {
  switch (anchor.kind) {
    case "name":
      return { family: "n", at: anchor.name };
    case "country":
      return { family: "c", at: anchor.code };
    case "geo":
      return { family: "g", at: `${anchor.layer}:${anchor.cell}` };
    case "word":
      return { family: "w", at: anchor.prefix };
    case "any":
      return { family: "w", at: ANY_PAGE };
  }
}

export function stampKey(place: Place): Deno.KvKey {
  return alerts.stamp(place.family, place.at);
}

/**
 * A place's stamp, written in the same atomic as any of its pages: `seq` counts the place's writes,
 * and `pages` holds for each page (page 0 first, so its length is the count of pages) the `seq` of
 * its last write, a token no other content of that page ever had. Places written before stamps
 * have none.
 */
export interface Stamp {
  seq: number;
  pages: number[];
}

export function pageKey(place: Place, n: number): Deno.KvKey {
  return place.family === "w"
    ? alerts.wordPage(place.at, n)
    : alerts.placePage(place.family, place.at, n);
}

const GEOHASH = "0123456789bcdefghjkmnpqrstuvwxyz";

/**
 * The lock of a geo place: the quarter of the world (the first two bits of its cell) it lies in,
 * so one alert's pages take at most four, and alerts far apart rarely wait for each other.
 */
export function geoShard(at: string): number {
  return GEOHASH.indexOf(at[at.indexOf(":") + 1]) >> 3;
}

// Values are stored as UTF-8 JSON bytes, so their size is known exactly; under KV's 64 KiB.
export const PAGE_BYTES = 60_000;
/** Room kept on a page for its own members (`more`, `cap`) beside the entries. */
const PAGE_SLACK = 64;
/**
 * The page bytes one alert's filing (or removal) may rewrite: an edit does both in one atomic,
 * with the stamps, under KV's 800 KiB.
 */
const ALERT_PAGE_BYTES = 360_000;

/**
 * How large a page an alert filed at `places` places may join or start: a geo alert sits on up
 * to 32, each rewritten whole. A page keeps the smallest cap of the alerts ever on it, so
 * removing any of them rewrites no more than its own cap a place either.
 */
export function pageCap(places: number): number {
  return Math.min(PAGE_BYTES, Math.floor(ALERT_PAGE_BYTES / Math.max(1, places)));
}
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodePage(page: Page): Uint8Array {
  return encoder.encode(JSON.stringify(page));
}

export function decodePage(bytes: Uint8Array | null): Page {
  return bytes ? JSON.parse(decoder.decode(bytes)) as Page : { entries: [] };
}

/** Bytes `alert` takes on a page, with its comma. */
export function entryBytes(alert: StoredAlert): number {
  return encoder.encode(JSON.stringify(alert)).byteLength + 1;
}

interface Held {
  place: Place;
  n: number;
  entry: Deno.KvEntryMaybe<Uint8Array>;
  page: Page;
  bytes: number;
}

/**
 * The pages one atomic reads and rewrites, each read once, and their places' stamps: a changed
 * page is written back with a new token in its place's stamp, under a check of the stamp and the
 * page as read (every write of a place's pages rewrites its stamp), or for geo pages, of their
 * quarter's lock (read before them, bumped by every write).
 */
export class Pages {
  readonly #kv: Deno.Kv;
  readonly #pages = new Map<string, Held>();
  readonly #dirty = new Set<string>();
  readonly #locks = new Map<number, Deno.KvEntryMaybe<number>>();
  readonly #stamps = new Map<string, Deno.KvEntryMaybe<Stamp>>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Reads what `wanted` names (pages not yet held), geo locks first, all at once a wave. */
  async load(wanted: { place: Place; n: number }[]): Promise<void> {
    const missing = wanted.filter(({ place, n }) => !this.#pages.has(`${n}:${placeId(place)}`));
    const shards = [
      ...new Set(missing.filter((w) => w.place.family === "g").map((w) => geoShard(w.place.at))),
    ].filter((shard) => !this.#locks.has(shard));
    const locks = await getEntries<number>(this.#kv, shards.map(alerts.geoLock));
    shards.forEach((shard, i) => this.#locks.set(shard, locks[i]));
    const unstamped = [...new Map(missing.map(({ place }) => [placeId(place), place])).values()]
      .filter((place) => !this.#stamps.has(placeId(place)));
    const [entries, stamps] = await Promise.all([
      getEntries<Uint8Array>(this.#kv, missing.map(({ place, n }) => pageKey(place, n))),
      getEntries<Stamp>(this.#kv, unstamped.map(stampKey)),
    ]);
    unstamped.forEach((place, i) => this.#stamps.set(placeId(place), stamps[i]));
    missing.forEach(({ place, n }, i) => {
      const entry = entries[i];
      const bytes = entry.value?.byteLength ?? PAGE_SLACK;
      this.#pages.set(`${n}:${placeId(place)}`, {
        place,
        n,
        entry,
        page: decodePage(entry.value),
        bytes,
      });
    });
  }

  async #held(place: Place, n: number): Promise<Held> {
    const id = `${n}:${placeId(place)}`;
    if (!this.#pages.has(id)) await this.load([{ place, n }]);
    return this.#pages.get(id)!;
  }

  /** The count of pages of `place` (its page 0 and stamp held): by its stamp, else page 0. */
  #count(place: Place): number {
    const id = placeId(place);
    return this.#stamps.get(id)!.value?.pages.length ??
      (this.#pages.get(`0:${id}`)!.page.more ?? 0) + 1;
  }

  /** Reads page 0 and the stamp of every place, then the last page of each, ready for `add`. */
  async loadTails(places: Place[]): Promise<void> {
    await this.load(places.map((place) => ({ place, n: 0 })));
    await this.load(places.map((place) => ({ place, n: this.#count(place) - 1 })));
  }

  /**
   * Files `alert` on the last page of `place` if it stays within both its cap and `cap`, else on
   * a new page; returns the page's number.
   */
  async add(place: Place, alert: StoredAlert, cap: number): Promise<number> {
    const size = entryBytes(alert);
    await this.#held(place, 0);
    const last = this.#count(place) - 1;
    const tail = await this.#held(place, last);
    const limit = Math.min(tail.page.cap ?? PAGE_BYTES, cap);
    const n = tail.bytes + size + PAGE_SLACK <= limit ? last : last + 1;
    const held = n === last ? tail : await this.#held(place, n);
    held.page.cap = Math.min(held.page.cap ?? PAGE_BYTES, cap);
    held.page.entries.push(alert);
    held.bytes += size;
    this.#dirty.add(`${n}:${placeId(place)}`);
    return n;
  }

  async remove(place: Place, n: number, alertId: string): Promise<void> {
    // Page 0 with it: without a stamp, its count of pages goes into the place's first stamp.
    await this.load([{ place, n: 0 }, { place, n }]);
    const held = await this.#held(place, n);
    held.page.entries = held.page.entries.filter((e) => e.id !== alertId);
    this.#dirty.add(`${n}:${placeId(place)}`);
  }

  /**
   * Adds every changed page to `op` with its place's new stamp, under a check of the stamp as
   * read, or for geo places, of their quarter's lock.
   */
  writeTo(op: Deno.AtomicOperation): void {
    const shards = new Set<number>();
    const changed = new Map<string, { place: Place; pages: Set<number> }>();
    for (const id of this.#dirty) {
      const { place, n, entry, page } = this.#pages.get(id)!;
      const at = changed.get(placeId(place)) ?? { place, pages: new Set<number>() };
      changed.set(placeId(place), at.pages.add(n) && at);
      // Read beside its stamp, not with it: a write between the two readings changed the page
      // and the stamp read after it would not say so. A geo page's lock is read before it.
      if (place.family !== "g") op.check(entry);
      // The stamp keeps counting an emptied page: it reads as empty.
      if (page.entries.length === 0 && !page.more) op.delete(entry.key);
      else op.set(entry.key, encodePage(page));
    }
    for (const [id, { place, pages }] of changed) {
      const stamp = this.#stamps.get(id)!;
      if (place.family === "g") shards.add(geoShard(place.at));
      else op.check(stamp);
      const seq = (stamp.value?.seq ?? 0) + 1;
      const count = Math.max(this.#count(place), ...[...pages].map((n) => n + 1));
      // Pages with no token yet (a place stamped for the first time) get this write's: read anew.
      const tokens = Array.from({ length: count }, (_, n) => {
        const old = stamp.value?.pages[n];
        return pages.has(n) || old === undefined ? seq : old;
      });
      op.set(stamp.key, { seq, pages: tokens } satisfies Stamp);
    }
    for (const shard of shards) {
      const lock = this.#locks.get(shard)!;
      op.check(lock).set(lock.key, (lock.value ?? 0) + 1);
    }
  }
}
