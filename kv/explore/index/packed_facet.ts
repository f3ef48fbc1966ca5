/**
 * The facet fields of a packed card or document read in place, without unpacking its card: what a
 * scan checks for every entry it lists.
 */
import { normalizeName } from "../../../domain/explore.ts";
import type { Location, Payment } from "../../../domain/tasks/task.ts";
import type { FacetFields } from "./facet.ts";
import type { PackedCard, PackedDoc } from "./card.ts";

/**
 * The facet fields of a packed card or document, read in place (the same fields `facetOf` gives
 * its card): a scan reads one for every entry it lists, and most are rejected on their place, so
 * the location name is normalized only when a name filter asks for it.
 */
class PackedFacet implements FacetFields {
  readonly lon: number;
  readonly lat: number;
  readonly payment: Payment;
  readonly type: Location["type"];
  readonly radiusKm: number;
  readonly countryCode: string;
  readonly #rawName: string;
  #name: string | undefined;

  constructor(packed: PackedCard | PackedDoc) {
    const [, , budget, , , , , , loc] = packed as PackedCard;
    this.payment = budget > 0 ? "Paid" : "Pro-bono";
    if (Array.isArray(loc)) {
      this.type = loc[0];
      this.#rawName = loc[1];
      this.lon = loc[2];
      this.lat = loc[3];
      this.countryCode = loc[4] ?? "";
      this.radiusKm = loc[5] ?? 0;
    } else {
      this.type = loc.type;
      this.#rawName = loc.name;
      this.lon = loc.coordinates[0];
      this.lat = loc.coordinates[1];
      this.countryCode = loc.countryCode ?? "";
      this.radiusKm = loc.radiusKm ?? 0;
    }
  }

  get name(): string {
    return this.#name ??= normalizeName(this.#rawName);
  }
}

/** The facet fields of a packed card or document (see `PackedFacet`). */
export function packedFacet(packed: PackedCard | PackedDoc): FacetFields {
  return new PackedFacet(packed);
}
