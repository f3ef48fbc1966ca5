/**
 * Explore (docs/contract.md section 7): the query's filters and their rules as plain functions, the
 * reference that the indexes in kv/ are tested against, and the explore item shape.
 */
import { z } from "zod";
import { BboxParam, type BoundingBox, inBbox } from "./geo/bbox.ts";
import { type Circle, haversineKm, type Point } from "./geo/geo.ts";
import { decimalParam } from "./validation/query_number.ts";
import {
  Location,
  matchesPayment,
  matchesTerms,
  Payment,
  spotsLeftOf,
  type TaskRecord,
} from "./tasks/task.ts";
import { type TaskFilter, taskFilter, taskFilterFields } from "./tasks/task_filter.ts";
import { TaskListItem } from "./tasks/task_view.ts";
import { normalizeText, NOT_BLANK_PATTERN } from "./validation/text.ts";

/** A search circle: the tasks within `radiusKm` of the point (great-circle). */
export type GeoFilter = Circle;

/** Where a task is, as a geo query reads it: its type, its centre and its own radius (0 if none). */
export interface GeoPlace extends Point {
  type: Location["type"];
  radiusKm: number;
}

/** The filters of an explore query, normalized; they combine with AND. */
export interface ExploreFilters extends TaskFilter {
  geo?: GeoFilter;
  /** Normalized (`normalizeName`) name of a city-type location. */
  cityName?: string;
  /** Normalized name of a location of any type. */
  regionName?: string;
  /** Upper case. */
  countryCode?: string;
  /** Only tasks that still take people (spotsLeft > 0). */
  hasSpots?: boolean;
  /** City- and radius-type tasks whose coordinates lie in the box. */
  bbox?: BoundingBox;
}

/** The task fields explore reads. */
export type ExploreTask = Pick<
  TaskRecord,
  | "id"
  | "userId"
  | "orderKey"
  | "title"
  | "description"
  | "budget"
  | "currency"
  | "status"
  | "createdAt"
  | "deletedAt"
  | "location"
  | "maxPeople"
  | "acceptedCount"
>;

/** An explore result: the list item plus `location`, and `distanceKm` on a geo query. */
export const ExploreItem = TaskListItem.extend({
  location: Location,
  distanceKm: z.number().optional().describe(
    "Great-circle distance in km from the search point to the task's coordinates, one decimal; " +
      "only on a geo query",
  ),
}).meta({ id: "ExploreItem" });
export type ExploreItem = z.infer<typeof ExploreItem>;

const queryNumber = (min: number, max: number, description: string) =>
  decimalParam(min, max).describe(description);

/** The filter members of GET /tasks/explore (paging members apart). */
export const exploreFilterFields = {
  ...taskFilterFields,
  regionName: z.string().max(200).trim().min(1).meta({ pattern: NOT_BLANK_PATTERN }).optional()
    .describe("location.name of a task of any type; case and accents ignored"),
  cityName: z.string().max(200).trim().min(1).meta({ pattern: NOT_BLANK_PATTERN }).optional()
    .describe("location.name of a city-type task; case and accents ignored"),
  countryCode: z.string().regex(/^[A-Za-z]{2}$/, "must be a two-letter country code").optional()
    .describe("location.countryCode; case ignored"),
  latitude: queryNumber(-90, 90, "Centre of the search circle; with longitude and radiusKm")
    .optional(),
  longitude: queryNumber(-180, 180, "Centre of the search circle; with latitude and radiusKm")
    .optional(),
  radiusKm: queryNumber(1, 500, "Radius of the search circle in km, 1 to 500").optional(),
  hasSpots: z.enum(["true", "false"]).optional()
    .describe("true: only tasks that still take people (spotsLeft > 0)"),
  bbox: BboxParam.optional(),
  sort: z.enum(["newest", "distance"]).default("newest").describe(
    "newest (default): createdAt then id, descending; distance: nearest first from the geo " +
      "query's point (needs latitude, longitude and radiusKm), ties newest first",
  ),
};

/** The parsed filter members of an explore query. */
export interface ExploreFilterQuery {
  search?: string;
  payment?: Payment;
  regionName?: string;
  cityName?: string;
  countryCode?: string;
  latitude?: number;
  longitude?: number;
  radiusKm?: number;
  hasSpots?: "true" | "false";
  bbox?: BoundingBox;
  sort?: "newest" | "distance";
}

const GEO_MEMBERS = ["latitude", "longitude", "radiusKm"] as const;

/** latitude, longitude and radiusKm come together or not at all. */
export function checkGeoTogether(query: ExploreFilterQuery, ctx: z.RefinementCtx): void {
  const given = GEO_MEMBERS.filter((m) => query[m] !== undefined);
  if (given.length === 0 || given.length === GEO_MEMBERS.length) return;
  for (const member of GEO_MEMBERS.filter((m) => query[m] === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: [member],
      message: "latitude, longitude and radiusKm must be given together",
    });
  }
}

/** sort=distance measures from the geo query's point, so it needs one. */
export function checkDistanceSort(query: ExploreFilterQuery, ctx: z.RefinementCtx): void {
  if (query.sort !== "distance" || query.latitude !== undefined) return;
  ctx.addIssue({
    code: "custom",
    path: ["sort"],
    message: "distance needs latitude, longitude and radiusKm",
  });
}

/** The normalized filters of a validated query. */
export function exploreFilters(query: ExploreFilterQuery): ExploreFilters {
  const filters: ExploreFilters = taskFilter(query);
  if (
    query.latitude !== undefined && query.longitude !== undefined && query.radiusKm !== undefined
  ) {
    filters.geo = { lon: query.longitude, lat: query.latitude, radiusKm: query.radiusKm };
  }
  if (query.cityName !== undefined) filters.cityName = normalizeName(query.cityName);
  if (query.regionName !== undefined) filters.regionName = normalizeName(query.regionName);
  if (query.countryCode !== undefined) filters.countryCode = query.countryCode.toUpperCase();
  if (query.hasSpots === "true") filters.hasSpots = true;
  if (query.bbox !== undefined) filters.bbox = query.bbox;
  return filters;
}

/** Location names compare ignoring case and accents. */
export function normalizeName(name: string): string {
  return normalizeText(name.trim());
}

/** True when explore may show the task to anyone: published and not deleted. */
export function isExplorable(task: Pick<TaskRecord, "status" | "deletedAt">): boolean {
  return task.status === "published" && task.deletedAt === null;
}

/**
 * Distance in km from the search point to a task's coordinates when the task falls in the
 * search circle, else null. City points must lie inside; a radius-type task's own circle must
 * reach the search circle; other types never take part in a geo query.
 */
export function geoMatch(geo: GeoFilter, place: GeoPlace): number | null {
  const { type } = place;
  if (type !== "city" && type !== "radius") return null;
  const d = haversineKm(geo, place);
  const reach = type === "radius" ? geo.radiusKm + place.radiusKm : geo.radiusKm;
  return d <= reach ? d : null;
}

/** Only city- and radius-type tasks take part in a box query, by their coordinates. */
export function bboxMatch(
  box: BoundingBox,
  type: Location["type"],
  lon: number,
  lat: number,
): boolean {
  return (type === "city" || type === "radius") && inBbox(box, lon, lat);
}

/** Distances are shown to one decimal. */
export function roundKm(km: number): number {
  return Math.round(km * 10) / 10;
}

/** The reference: does an explorable task match, and at what distance (geo queries). */
export function matchExplore(
  task: ExploreTask,
  terms: readonly string[],
  filters: ExploreFilters,
): { distanceKm?: number } | null {
  if (!isExplorable(task)) return null;
  if (filters.hasSpots && spotsLeftOf(task) === 0) return null;
  const loc = task.location;
  if (filters.payment !== undefined && !matchesPayment(task.budget, filters.payment)) return null;
  if (filters.countryCode !== undefined && loc.countryCode !== filters.countryCode) return null;
  if (filters.cityName !== undefined) {
    if (loc.type !== "city" || normalizeName(loc.name) !== filters.cityName) return null;
  }
  if (filters.regionName !== undefined && normalizeName(loc.name) !== filters.regionName) {
    return null;
  }
  if (!matchesTerms(filters.search, terms)) return null;
  if (filters.bbox && !bboxMatch(filters.bbox, loc.type, loc.coordinates[0], loc.coordinates[1])) {
    return null;
  }
  if (filters.geo) {
    const [lon, lat] = loc.coordinates;
    const d = geoMatch(filters.geo, { type: loc.type, lon, lat, radiusKm: loc.radiusKm ?? 0 });
    return d === null ? null : { distanceKm: d };
  }
  return {};
}
