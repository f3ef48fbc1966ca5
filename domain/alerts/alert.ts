/**
 * Task alerts (docs/contract.md section 17): saved explore filters plus `minBudget`, their
 * request and response shapes (validated by explore's own member schemas and rules) and the
 * stored record.
 */
import { z } from "zod";
import {
  checkGeoTogether,
  exploreFilterFields,
  type ExploreFilters,
  exploreFilters,
} from "../explore.ts";
import { MAX_BUDGET } from "../tasks/task.ts";
import { userText } from "../validation/text.ts";
import { AppError } from "../errors.ts";

/** Alerts an account may hold at once. */
export const MAX_ALERTS = 20;

// Explore reads these from a query string (decimalParam); a JSON body carries numbers, held to
// the same ranges and worded as explore words them.
const bodyNumber = (min: number, max: number, description: string) => {
  const message = `must be a decimal number from ${min} to ${max}`;
  return z.number({ error: message }).min(min, message).max(max, message).describe(description);
};

/** The filters of an alert: explore's members (paging and order apart) and `minBudget`. */
export const AlertFilters = z.strictObject({
  search: exploreFilterFields.search,
  payment: exploreFilterFields.payment,
  regionName: exploreFilterFields.regionName,
  cityName: exploreFilterFields.cityName,
  countryCode: exploreFilterFields.countryCode,
  latitude: bodyNumber(-90, 90, "Centre of the search circle; with longitude and radiusKm")
    .optional(),
  longitude: bodyNumber(-180, 180, "Centre of the search circle; with latitude and radiusKm")
    .optional(),
  radiusKm: bodyNumber(1, 500, "Radius of the search circle in km, 1 to 500").optional(),
  minBudget: z.number().min(0).max(MAX_BUDGET).optional()
    .describe("Only tasks whose budget is at least this (any currency)"),
}).superRefine(checkGeoTogether).superRefine((filters, ctx) => {
  if (constrains(filters)) return;
  ctx.addIssue({
    code: "custom",
    path: [],
    message: "give at least one filter (a search with at least one word, payment, a geo circle, " +
      "cityName, countryCode, regionName or minBudget)",
  });
}).meta({
  id: "AlertFilters",
  // The two rules above as far as JSON Schema says them (issue 46 #6): a member at least (an
  // empty search still passes here and is refused), and the circle's three members together.
  minProperties: 1,
  dependentRequired: {
    latitude: ["longitude", "radiusKm"],
    longitude: ["latitude", "radiusKm"],
    radiusKm: ["latitude", "longitude"],
  },
  description: "Explore's filters, with explore's rules, plus minBudget; at least one. A task " +
    "matches when explore given these filters would list it and its budget is at least minBudget.",
});
export type AlertFilters = z.infer<typeof AlertFilters>;

/** True when the filters narrow anything: an empty search or no member at all lets all through. */
function constrains(f: AlertFilters): boolean {
  const { search, ...rest } = f;
  const words = exploreFilters({ search }).search;
  return words.length > 0 || Object.values(rest).some((v) => v !== undefined);
}

/**
 * True when the filters narrow by place or word: a search with a word, a circle, a city, a
 * region or a country. `minBudget` and `payment` alone let through nearly every task, so such
 * an alert would turn each new task into a delivery to every endpoint of its owner.
 */
export function narrowsByPlaceOrWord(f: AlertFilters | AlertCriteria): boolean {
  const words = typeof f.search === "string"
    ? exploreFilters({ search: f.search }).search
    : f.search;
  const circle = "geo" in f ? f.geo !== undefined : "latitude" in f && f.latitude !== undefined;
  return (words?.length ?? 0) > 0 || circle || !!f.cityName || !!f.regionName || !!f.countryCode;
}

/** The refusal of filters that do not narrow by place or word. */
export function alertTooBroad(): AppError {
  return new AppError(
    "ALERT_TOO_BROAD",
    "An alert needs a filter that narrows by place or word (search, a circle, cityName, " +
      "regionName or countryCode); minBudget and payment alone match nearly every task",
  );
}

const AlertName = userText({ min: 1, max: 100, tooLong: "name must be at most 100 characters" });

export const AlertCreate = z.strictObject({ name: AlertName, filters: AlertFilters })
  .meta({ id: "AlertCreate" });
export type AlertCreate = z.infer<typeof AlertCreate>;

export const AlertPatch = z.strictObject({
  name: AlertName.optional(),
  filters: AlertFilters.optional(),
  enabled: z.boolean().optional(),
}).meta({ id: "AlertPatch" });
export type AlertPatch = z.infer<typeof AlertPatch>;

export const AlertView = z.object({
  id: z.uuid(),
  name: z.string(),
  filters: z.record(z.string(), z.unknown()).meta({
    description: "The filters as given (AlertFilters)",
  }),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: "Alert" });
export type AlertView = z.infer<typeof AlertView>;

/** A stored alert. */
export interface AlertRecord {
  id: string;
  userId: string;
  name: string;
  filters: AlertFilters;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export function toAlertView(alert: AlertRecord): AlertView {
  return {
    id: alert.id,
    name: alert.name,
    filters: alert.filters,
    enabled: alert.enabled,
    createdAt: alert.createdAt,
    updatedAt: alert.updatedAt,
  };
}

/**
 * What matching reads of an alert: its explore filters, normalized, and its budget floor, in one
 * object (the index's pages hold it as it is, kv/alerts/pages.ts).
 */
export interface AlertCriteria extends ExploreFilters {
  minBudget?: number;
}

/** The criteria of validated filters, normalized by explore's own function. */
export function alertCriteria(filters: AlertFilters): AlertCriteria {
  const { minBudget, ...query } = filters;
  const criteria: AlertCriteria = exploreFilters(query);
  if (minBudget !== undefined) criteria.minBudget = minBudget;
  return criteria;
}

/**
 * An alert's edit at `at`, as a pure transition from the stored alert: the members given replace
 * its own. kv runs it again on the fresh alert after a concurrent change, so no edit is lost.
 */
export function editedAlert(patch: AlertPatch, at: string): (alert: AlertRecord) => AlertRecord {
  return (alert) => ({
    ...alert,
    name: patch.name ?? alert.name,
    filters: patch.filters ?? alert.filters,
    enabled: patch.enabled ?? alert.enabled,
    updatedAt: at,
  });
}
