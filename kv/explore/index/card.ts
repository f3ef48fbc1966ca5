/**
 * A task's card and document as explore stores them: tuples, since V8's serialization spells
 * every field name of an object in every value; packed and unpacked here, read in place.
 */
import type { ExploreItem } from "../../../domain/explore.ts";
import type { Location } from "../../../domain/tasks/task.ts";
import { type PackedItem, packItem, unpackItem } from "../../tasks/packed_item.ts";
import { type PackedWords, packWords, unpackWords } from "../../tasks/packed_words.ts";

/** The explore item as stored: the distance depends on the query. */
export type StoredExploreItem = Omit<ExploreItem, "distanceKm">;

/**
 * What a page shows of a task and the author, whose tasks hide while the account's purge runs:
 * the value of the entries that drive a scan without search (geo, country, name), so that such a
 * page reads no record at all. Its facet is derived from the item (`packedFacet` reads it from
 * the packed card in place), not stored.
 */
export interface ExploreCard {
  item: StoredExploreItem;
  userId: string;
}

/** A location as a card stores it: [type, name, lon, lat, countryCode or null, radiusKm or null]. */
type PackedLocation = [
  type: Location["type"],
  name: string,
  lon: number,
  lat: number,
  countryCode: string | null,
  radiusKm: number | null,
];

/**
 * A card as stored: a tuple, since V8's serialization spells every field name of an object in
 * every value, and cards are some seven values a task. The location is packed too unless it
 * holds anything `unpackCard` would not give back (then it is kept as it is).
 */
export type PackedCard = [...PackedItem, location: PackedLocation | Location, userId: string];

/** A document as stored: its packed card and its search words (`packWords`). */
export type PackedDoc = [...PackedCard, words: PackedWords];

const LOCATION_KEYS = ["coordinates", "type", "name", "countryCode", "radiusKm"];

function packLocation(loc: Location): PackedLocation | Location {
  // Fields are given back in the API schema's order, whatever order the record holds them in.
  const known = Object.entries(loc).every(([k, v]) => LOCATION_KEYS.includes(k) && v !== undefined);
  if (!known) return loc;
  const [lon, lat] = loc.coordinates;
  return [loc.type, loc.name, lon, lat, loc.countryCode ?? null, loc.radiusKm ?? null];
}

function unpackLocation(packed: PackedLocation | Location): Location {
  if (!Array.isArray(packed)) return packed;
  const [type, name, lon, lat, countryCode, radiusKm] = packed;
  const loc: Location = { coordinates: [lon, lat], type, name };
  if (countryCode !== null) loc.countryCode = countryCode;
  if (radiusKm !== null) loc.radiusKm = radiusKm;
  return loc;
}

export function packCard(card: ExploreCard): PackedCard {
  return [...packItem(card.item), packLocation(card.item.location), card.userId];
}

/** The card of a packed card or document, its item's fields in the order `itemOf` gives them. */
export function unpackCard(packed: PackedCard | PackedDoc): ExploreCard {
  return { item: unpackExploreItem(packed), userId: packedUserId(packed) };
}

/** The stored item of a packed card or document (its fields in the order `itemOf` gives them). */
export function unpackExploreItem(packed: PackedCard | PackedDoc): StoredExploreItem {
  const item = unpackItem(packed) as StoredExploreItem;
  item.location = unpackLocation((packed as PackedCard)[8]);
  return item;
}

/** The author of a packed card or document, read in place. */
export function packedUserId(packed: PackedCard | PackedDoc): string {
  return (packed as PackedCard)[9];
}

/** The spots left of a packed card or document, read in place. */
export function packedSpotsLeft(packed: PackedCard | PackedDoc): number {
  return (packed as PackedCard)[7];
}

/** The packed search words of a packed document, read in place. */
export function packedWords(packed: PackedDoc): PackedWords {
  return packed[packed.length - 1] as PackedWords;
}

export function packDoc(doc: ExploreDoc): PackedDoc {
  return [...packCard(doc), packWords(doc.terms)];
}

export function unpackDoc(packed: PackedDoc): ExploreDoc {
  return { ...unpackCard(packed), terms: unpackWords(packedWords(packed)) };
}

/**
 * Value of the all-tasks index: the card and the search words. Word entries carry only the
 * payment class (which names this document's key): a search must read the words anyway (every
 * query word must start one), so its page reads this document for each candidate, and checks
 * every other filter on its card.
 */
export interface ExploreDoc extends ExploreCard {
  terms: string[];
}
