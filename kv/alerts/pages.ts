/**
 * The alerts' index pages (docs/alerts.md): values of JSON under 60,000 bytes holding the alerts
 * filed at one place, page 0 counting the pages after it; and one atomic's writes to them.
 */
import type { AlertFilters } from "../../domain/alerts/alert.ts";
import type { Anchor } from "../../domain/alerts/anchors.ts";
import { getEntries } from "../store/get_all.ts";
import { alerts } from "../keyspace.ts";

/**
 * The place of the alerts filed under nothing (`any`): read with the word pages, in the same
 * `getMany`. No word holds "*" (words are letters, digits and marks).
 */
export const ANY_PAGE = "*";

/** An alert as the index holds it: enough to decide a match without reading its record. */
export interface IndexedAlert {
  id: string;
  userId: string;
  filters: AlertFilters;
}

/** A place alerts are filed at: a word start or "*" (w), a name (n), a country (c), a geo cell (g). */
export interface Place {
  family: "w" | "n" | "c" | "g";
  /** The word start, name or country code; for a geo cell, "layer:cell". */
  at: string;
}

/** A page: the alerts filed at a place; page 0 counts the pages after it. */
export interface Page {
  more?: number;
  entries: IndexedAlert[];
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
/** Room kept on a page for its own members (`more`) beside the entries. */
const PAGE_SLACK = 64;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodePage(page: Page): Uint8Array {
  return encoder.encode(JSON.stringify(page));
}

export function decodePage(bytes: Uint8Array | null): Page {
  return bytes ? JSON.parse(decoder.decode(bytes)) as Page : { entries: [] };
}

/** Bytes `alert` takes on a page, with its comma. */
export function entryBytes(alert: IndexedAlert): number {
  return encoder.encode(JSON.stringify(alert)).byteLength + 1;
}

interface Held {
  place: Place;
  entry: Deno.KvEntryMaybe<Uint8Array>;
  page: Page;
  bytes: number;
}

/**
 * The pages one atomic reads and rewrites: each read once, written back under a check of the
 * version read, or for geo pages, of their shard's lock (read before them, bumped by every write).
 */
export class Pages {
  readonly #kv: Deno.Kv;
  readonly #pages = new Map<string, Held>();
  readonly #dirty = new Set<string>();
  readonly #locks = new Map<number, Deno.KvEntryMaybe<number>>();

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
    const entries = await getEntries<Uint8Array>(
      this.#kv,
      missing.map(({ place, n }) => pageKey(place, n)),
    );
    missing.forEach(({ place, n }, i) => {
      const entry = entries[i];
      const bytes = entry.value?.byteLength ?? PAGE_SLACK;
      this.#pages.set(`${n}:${placeId(place)}`, {
        place,
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

  /** Reads page 0 of every place, then the last page of each, ready for `add`. */
  async loadTails(places: Place[]): Promise<void> {
    await this.load(places.map((place) => ({ place, n: 0 })));
    const tails = places.flatMap((place) => {
      const more = this.#pages.get(`0:${placeId(place)}`)!.page.more ?? 0;
      return more > 0 ? [{ place, n: more }] : [];
    });
    await this.load(tails);
  }

  /** Files `alert` on the last page of `place` with room, or a new one; returns its number. */
  async add(place: Place, alert: IndexedAlert): Promise<number> {
    const size = entryBytes(alert);
    const head = await this.#held(place, 0);
    const last = head.page.more ?? 0;
    const tail = last === 0 ? head : await this.#held(place, last);
    const into = tail.bytes + size + PAGE_SLACK <= PAGE_BYTES ? tail : null;
    const n = into ? last : last + 1;
    const page = into ?? await this.#held(place, n);
    page.page.entries.push(alert);
    page.bytes += size;
    this.#dirty.add(`${n}:${placeId(place)}`);
    if (n !== last) {
      head.page.more = n;
      this.#dirty.add(`0:${placeId(place)}`);
    }
    return n;
  }

  async remove(place: Place, n: number, alertId: string): Promise<void> {
    const held = await this.#held(place, n);
    held.page.entries = held.page.entries.filter((e) => e.id !== alertId);
    this.#dirty.add(`${n}:${placeId(place)}`);
  }

  /** Adds every changed page to `op`, each under a check of its version or of its shard's lock. */
  writeTo(op: Deno.AtomicOperation): void {
    const shards = new Set<number>();
    for (const id of this.#dirty) {
      const { place, entry, page } = this.#pages.get(id)!;
      if (place.family === "g") shards.add(geoShard(place.at));
      else op.check(entry);
      if (page.entries.length === 0 && !page.more) op.delete(entry.key);
      else op.set(entry.key, encodePage(page));
    }
    for (const shard of shards) {
      const lock = this.#locks.get(shard)!;
      op.check(lock).set(lock.key, (lock.value ?? 0) + 1);
    }
  }
}
