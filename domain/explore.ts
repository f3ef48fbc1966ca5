/**
 * Explore rules (API.md section 7) as plain functions: which published task a set of filters
 * selects. The indexes in kv/ must agree with `matchExplore`, the reference they are tested with.
 */
import { haversineKm } from "./geo.ts";
import { normalizeText } from "./text.ts";

/** A search circle: the tasks within `radiusKm` of the point (great-circle). */
export interface GeoFilter {
  lon: number;
  lat: number;
  radiusKm: number;
}

/** The filters of an explore query, normalized; they combine with AND. */
export interface ExploreFilters {
  geo?: GeoFilter;
  /** Normalized (`normalizeName`) name of a city-type location. */
  cityName?: string;
  /** Normalized name of a location of any type. */
  regionName?: string;
  /** Upper case. */
  countryCode?: string;
  /** Query words (`queryWords`); each must start a word of the title or description. */
  search: string[];
  payment?: "Paid" | "Pro-bono";
}

/** The location of a task as stored. */
export interface ExploreLocation {
  type: "city" | "country" | "world" | "radius";
  name: string;
  coordinates: [number, number];
  countryCode?: string;
  radiusKm?: number;
}

/** The task fields explore reads; a stored task record has them all. */
export interface ExploreTask {
  id: string;
  orderKey: string;
  title: string;
  description: string;
  budget: number;
  currency: string;
  status: "published" | "completed";
  createdAt: string;
  deletedAt: string | null;
  location: ExploreLocation;
}

/** Location names compare ignoring case and accents. */
export function normalizeName(name: string): string {
  return normalizeText(name.trim());
}

/** True when explore may show the task to anyone: published and not deleted. */
export function isExplorable(task: Pick<ExploreTask, "status" | "deletedAt">): boolean {
  return task.status === "published" && task.deletedAt === null;
}

/**
 * Distance in km from the search point to a task's coordinates when the task falls in the
 * search circle, else null. City points must lie inside; a radius-type task's own circle must
 * reach the search circle; other types never take part in a geo query.
 */
export function geoMatch(
  geo: GeoFilter,
  type: ExploreLocation["type"],
  lon: number,
  lat: number,
  taskRadiusKm: number,
): number | null {
  if (type !== "city" && type !== "radius") return null;
  const d = haversineKm(geo.lon, geo.lat, lon, lat);
  const reach = type === "radius" ? geo.radiusKm + taskRadiusKm : geo.radiusKm;
  return d <= reach ? d : null;
}

/** Distances are shown to one decimal. */
export function roundKm(km: number): number {
  return Math.round(km * 10) / 10;
}

/** True when every query word is a prefix of some term. */
export function termsMatch(wanted: readonly string[], terms: readonly string[]): boolean {
  return wanted.every((prefix) => terms.some((term) => term.startsWith(prefix)));
}

/** True when a budget is in the payment class: Paid is > 0, Pro-bono is 0. */
export function paymentMatch(budget: number, payment: ExploreFilters["payment"]): boolean {
  if (payment === undefined) return true;
  return payment === "Paid" ? budget > 0 : budget === 0;
}

/** The reference: does an explorable task match, and at what distance (geo queries). */
export function matchExplore(
  task: ExploreTask,
  terms: readonly string[],
  filters: ExploreFilters,
): { distanceKm?: number } | null {
  if (!isExplorable(task)) return null;
  const loc = task.location;
  if (!paymentMatch(task.budget, filters.payment)) return null;
  if (filters.countryCode !== undefined && loc.countryCode !== filters.countryCode) return null;
  if (filters.cityName !== undefined) {
    if (loc.type !== "city" || normalizeName(loc.name) !== filters.cityName) return null;
  }
  if (filters.regionName !== undefined && normalizeName(loc.name) !== filters.regionName) {
    return null;
  }
  if (!termsMatch(filters.search, terms)) return null;
  if (filters.geo) {
    const [lon, lat] = loc.coordinates;
    const d = geoMatch(filters.geo, loc.type, lon, lat, loc.radiusKm ?? 0);
    return d === null ? null : { distanceKm: d };
  }
  return {};
}
