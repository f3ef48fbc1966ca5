/**
 * A task's facet: what every filter but search checks, carried in each index entry as a tuple,
 * and its fields named for the readers.
 */
import { type ExploreTask, normalizeName } from "../../../domain/explore.ts";
import type { Location, Payment } from "../../../domain/tasks/task.ts";

/**
 * What every filter but search needs to know of a task, carried in each index entry so that a
 * scan never reads a record to reject a candidate:
 * [longitude, latitude, paid (1) or pro-bono (0), type code, radiusKm (0 if none),
 * countryCode ("" if none), normalized location name].
 */
export type Facet = [
  lon: number,
  lat: number,
  paid: 0 | 1,
  typeCode: number,
  radiusKm: number,
  countryCode: string,
  name: string,
];

export const TYPE_CODES: readonly Location["type"][] = [
  "city",
  "country",
  "world",
  "radius",
];

/** A facet with its fields named, for the readers that check filters on it. */
export interface FacetFields {
  lon: number;
  lat: number;
  payment: Payment;
  type: Location["type"];
  radiusKm: number;
  countryCode: string;
  name: string;
}

/** Names the fields of a stored facet (kept a tuple in storage: it is in every index entry). */
export function readFacet(facet: Facet): FacetFields {
  const [lon, lat, paid, typeCode, radiusKm, countryCode, name] = facet;
  return {
    lon,
    lat,
    payment: paid === 1 ? "Paid" : "Pro-bono",
    type: TYPE_CODES[typeCode],
    radiusKm,
    countryCode,
    name,
  };
}

/** The facet of a task, see `Facet`. */
export function facetOf(task: Pick<ExploreTask, "budget" | "location">): Facet {
  const loc = task.location;
  return [
    loc.coordinates[0],
    loc.coordinates[1],
    task.budget > 0 ? 1 : 0,
    TYPE_CODES.indexOf(loc.type),
    loc.radiusKm ?? 0,
    loc.countryCode ?? "",
    normalizeName(loc.name),
  ];
}
