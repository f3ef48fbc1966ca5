/**
 * The KV floor of a page: the least Deno KV work any index layout could answer it with, one list
 * of exactly the page's entries (keys and cards) and the page's fixed JS (items, distances, the
 * cursor), read from real entries of the same store, so that the bench can say where PostGIS's
 * CPU is below what Deno KV itself can reach.
 */
import { type ExploreFilters, type ExploreItem, roundKm } from "../../domain/explore.ts";
import { haversineKm } from "../../domain/geo/geo.ts";
import { encodeCursor } from "../../kv/cursor.ts";
import { type PackedCard, unpackExploreItem } from "../../kv/explore/index/card.ts";
import { cursorScope, encodeNearest } from "../../kv/explore/page_cursor.ts";
import { explore } from "../../kv/keyspace.ts";

/**
 * The prefixes a floor page lists: explore's country entries (cards, under the shortest keys of
 * explore's card indexes, so the floor errs low) of the countries that hold a page, taken in turn
 * query by query so that no one page is read hot; and a range that holds nothing, for an empty
 * page.
 */
export interface FloorPool {
  prefixes: Deno.KvKey[];
  empty: Deno.KvKey;
}

/** The pool of `countries`' country prefixes holding at least `page` entries. */
export async function floorPool(
  kv: Deno.Kv,
  { countries, page }: { countries: readonly string[]; page: number },
): Promise<FloorPool> {
  const prefixes: Deno.KvKey[] = [];
  for (const cc of new Set(countries.map((c) => c.toUpperCase()))) {
    const prefix = explore.byCountryPrefix(cc);
    const held = await Array.fromAsync(kv.list({ prefix }, { limit: page }));
    if (held.length === page) prefixes.push(prefix);
  }
  // No entry has an empty country code: a task without one has no country entry.
  const empty = explore.byCountryPrefix("");
  if (prefixes.length === 0) throw new Error(`no country holds ${page} explore entries`);
  if ((await kv.list({ prefix: empty }, { limit: 1 }).next()).done !== true) {
    throw new Error("the floor's empty range holds entries");
  }
  return { prefixes, empty };
}

/** One floor page's request: the query it stands for, and how many items that page holds. */
export interface FloorQuery {
  filters: ExploreFilters;
  sort: "newest" | "distance";
  limit: number;
  /** The items the query's page holds (at most `limit`). */
  items: number;
  /** Which of the pool's prefixes to list (taken modulo their number). */
  turn: number;
}

/**
 * A floor page: `items` newest entries of a pool prefix in one list, each card made the item a
 * page shows (its distance when the query has a circle), and a full page's cursor.
 */
export async function floorPage(
  kv: Deno.Kv,
  pool: FloorPool,
  q: FloorQuery,
): Promise<{ items: ExploreItem[]; nextCursor: string | null }> {
  const prefix = q.items === 0 ? pool.empty : pool.prefixes[q.turn % pool.prefixes.length];
  const items: ExploreItem[] = [];
  let last: { key: string; d: number } | null = null;
  const iter = kv.list<PackedCard>({ prefix }, { reverse: true, limit: Math.max(1, q.items) });
  for await (const entry of iter) {
    const item: ExploreItem = unpackExploreItem(entry.value);
    const [lon, lat] = item.location.coordinates;
    const d = q.filters.geo ? haversineKm(q.filters.geo, { lon, lat }) : 0;
    if (q.filters.geo) item.distanceKm = roundKm(d);
    items.push(item);
    last = { key: entry.key[entry.key.length - 1] as string, d };
  }
  if (items.length < q.limit || last === null) return { items, nextCursor: null };
  const position = q.sort === "distance" ? encodeNearest(last) : last.key;
  return { items, nextCursor: await encodeCursor(position, cursorScope(q.filters, q.sort)) };
}
