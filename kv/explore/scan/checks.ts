/**
 * A scan candidate's checks: on its entry (facet, a word entry's position against the circle),
 * whether its document must be read, and the final check on its card that makes it an item.
 */
import {
  bboxMatch,
  type ExploreFilters,
  type ExploreItem,
  type GeoFilter,
  geoMatch,
  roundKm,
} from "../../../domain/explore.ts";
import { haversineKm } from "../../../domain/geo/geo.ts";
import { type FacetFields } from "../index/facet.ts";
import { packedSpotsLeft, unpackExploreItem } from "../index/card.ts";
import { packedHasWords } from "../../tasks/packed_words.ts";
import { type Candidate } from "./candidate.ts";

/** More than a word entry's rounded position can be off (km). */
const POSITION_SLACK_KM = 1;

/**
 * How far inside the search circle's reach a word entry's position puts its task (km; negative
 * outside), or null for an entry without one. The position is rounded to hundredths of a degree
 * (at most ~0.8 km off), so the entry is rejected only below -`POSITION_SLACK_KM` and taken as
 * surely inside (`geoMatch` passes whatever the rounding) only above +`POSITION_SLACK_KM`. A
 * city's entry carries radius 0, as its location has none.
 */
function reachMarginKm(candidate: Candidate, geo: GeoFilter): number | null {
  const position = candidate.position;
  if (!position) return null;
  const [lon, lat, radiusKm] = position;
  return geo.radiusKm + radiusKm - haversineKm(geo, { lon, lat });
}

/** False only where the entry's position puts its task out of the circle's reach. */
export function withinReach(candidate: Candidate, { geo }: ExploreFilters): boolean {
  const margin = geo ? reachMarginKm(candidate, geo) : null;
  return margin === null || margin >= -POSITION_SLACK_KM;
}

/** True where the entry's position puts its task inside the circle whatever the rounding. */
export function surelyWithin(candidate: Candidate, geo: GeoFilter): boolean {
  const margin = reachMarginKm(candidate, geo);
  return margin !== null && margin >= POSITION_SLACK_KM;
}

/** True when the final check needs the candidate's document: its card, or its search words. */
export function needsDoc(candidate: Candidate, filters: ExploreFilters): boolean {
  return !candidate.packed || (filters.search.length > 0 && candidate.words === undefined);
}

/** Every filter but search, on a facet: the distance on a geo query, 0 otherwise, or null. */
export function facetMatch(f: FacetFields, filters: ExploreFilters): number | null {
  if (filters.payment !== undefined && f.payment !== filters.payment) return null;
  if (filters.countryCode !== undefined && f.countryCode !== filters.countryCode) return null;
  if (filters.regionName !== undefined && f.name !== filters.regionName) return null;
  if (filters.cityName !== undefined && (f.type !== "city" || f.name !== filters.cityName)) {
    return null;
  }
  if (filters.bbox && !bboxMatch(filters.bbox, f.type, f.lon, f.lat)) return null;
  if (!filters.geo) return 0;
  return geoMatch(filters.geo, f);
}

/**
 * The final check, on the card as read (the document's, when it was read after the entry):
 * every filter, search included. `entryCheck`, the entry's own facet check, stands for the card's
 * while the card is the entry's (the facet was read from it).
 */
export function finalMatch(
  candidate: Candidate,
  filters: ExploreFilters,
  entryCheck: number | null | undefined,
): ExploreItem | null {
  const packed = candidate.packed!;
  const d = candidate.reloaded || entryCheck === undefined
    ? facetMatch(candidate.facet!, filters)
    : entryCheck;
  if (d === null) return null;
  // Not in the facet: acceptances rewrite the cards (item), and the facet needs no change.
  if (filters.hasSpots && packedSpotsLeft(packed) === 0) return null;
  if (filters.search.length > 0 && !packedHasWords(candidate.words ?? "", filters.search)) {
    return null;
  }
  const item: ExploreItem = unpackExploreItem(packed);
  if (filters.geo) item.distanceKm = roundKm(d);
  return item;
}
