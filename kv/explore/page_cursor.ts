/**
 * An explore page's cursor: what it is bound to (the normalized filters and the order, the limit
 * apart) and the position it holds, an order key newest first or a distance and order key
 * nearest first.
 */
import type { ExploreFilters } from "../../domain/explore.ts";
import { type CursorScope, isUlid } from "../cursor.ts";
import type { NearestPosition } from "./nearest/page_bounds.ts";

/** The scope a cursor of `filters` in `sort` order is made for and read back against. */
export function cursorScope(filters: ExploreFilters, sort: string): CursorScope {
  return {
    listing: "explore",
    search: filters.search.join(" "),
    payment: filters.payment,
    cityName: filters.cityName,
    regionName: filters.regionName,
    countryCode: filters.countryCode,
    latitude: filters.geo?.lat,
    longitude: filters.geo?.lon,
    radiusKm: filters.geo?.radiusKm,
    hasSpots: filters.hasSpots,
    bbox: filters.bbox
      ? [filters.bbox.minLon, filters.bbox.minLat, filters.bbox.maxLon, filters.bbox.maxLat]
        .join(",")
      : undefined,
    sort: sort === "newest" ? undefined : sort,
  };
}

/**
 * A nearest-first position: the exact distance as JavaScript prints it (it reads back to the
 * same double), then the order key.
 */
export function encodeNearest(p: NearestPosition): string {
  return `${p.d}_${p.key}`;
}

/** A nearest-first position read back; null when `position` is not one. */
export function decodeNearest(position: string): NearestPosition | null {
  const [d, key] = position.split("_");
  const value = Number(d);
  return Number.isFinite(value) && value >= 0 && isUlid(key ?? "") ? { d: value, key } : null;
}
