/**
 * Explore's answer beside PostGIS's for one query: explore's pages through its front door
 * (`explorePage`), followed by cursor until they hold `want` items or end, against PostGIS's
 * first `want` rows; the same ids in the same order, and distances within their rounding.
 */
import type { ExploreFilters, ExploreItem } from "../../domain/explore.ts";
import { explorePage } from "../../kv/explore/mod.ts";
import type { Sql } from "./pg_cluster.ts";
import { peerPage, peerQuery } from "./pg_queries.ts";

/** One query of a comparison. */
export interface PeerCase {
  filters: ExploreFilters;
  sort: "newest" | "distance";
}

/** Where the two answers part, or null when they agree. */
export interface PeerDifference {
  at: number;
  explore: { id: string; distanceKm?: number } | null;
  postgis: { id: string; d?: number } | null;
  exploreCount: number;
  postgisCount: number;
}

const PAGE = 20;
const MAX_PAGES = 200;

/** Explore's first `want` items for a query, over as many pages as it takes. */
export async function exploreItems(
  kv: Deno.Kv,
  c: PeerCase,
  want: number,
): Promise<ExploreItem[]> {
  const items: ExploreItem[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES && items.length < want; pages++) {
    const page = await explorePage(kv, { ...c, cursor, limit: PAGE });
    items.push(...page.items);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return items.slice(0, want);
}

// Shown to one decimal, explore's distance lies within half a step of PostGIS's exact one (a hair
// more: the two spheres' radii differ by 3 cm).
const DISTANCE_SLACK_KM = 0.05 + 1e-4;

/** How many items PostGIS answered, and the first place where the two answers differ (or null). */
export async function comparePeers(
  kv: Deno.Kv,
  sql: Sql,
  { table, query, want }: { table: string; query: PeerCase; want: number },
): Promise<{ items: number; difference: PeerDifference | null }> {
  const [ours, theirs] = await Promise.all([
    exploreItems(kv, query, want),
    peerPage(sql, peerQuery(table, { ...query, limit: want })),
  ]);
  const n = Math.max(ours.length, theirs.length);
  for (let at = 0; at < n; at++) {
    const a = ours[at];
    const b = theirs[at];
    const sameDistance = !a || !b || a.distanceKm === undefined ||
      (b.d !== undefined && Math.abs(a.distanceKm - b.d) <= DISTANCE_SLACK_KM);
    if (a?.id === b?.id && sameDistance) continue;
    const difference = {
      at,
      explore: a ? { id: a.id, distanceKm: a.distanceKm } : null,
      postgis: b ?? null,
      exploreCount: ours.length,
      postgisCount: theirs.length,
    };
    return { items: theirs.length, difference };
  }
  return { items: theirs.length, difference: null };
}
