/**
 * The explore index entries and counters of one task state, as pure data: the task write moves
 * from the entries of the old state to those of the new one in its own atomic.
 */
import { geohashEncode } from "../../../domain/geo/geohash.ts";
import {
  type ExploreItem,
  type ExploreTask,
  isExplorable,
  normalizeName,
} from "../../../domain/explore.ts";
import { type Location, type Payment, paymentOf, searchTerms } from "../../../domain/tasks/task.ts";
import { toTaskListItem } from "../../../domain/tasks/task_view.ts";
import { indexedWords } from "./explore_words.ts";
import { epochOf } from "./explore_epochs.ts";
import { explore, type NameKind } from "../../keyspace.ts";
import { type PackedItem, packItem, unpackItem } from "../../tasks/packed_item.ts";

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

/** A document as stored: its packed card and its search words. */
export type PackedDoc = [...PackedCard, terms: string[]];

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

export function packDoc(doc: ExploreDoc): PackedDoc {
  return [...packCard(doc), doc.terms];
}

export function unpackDoc(packed: PackedDoc): ExploreDoc {
  return { ...unpackCard(packed), terms: packed[packed.length - 1] as string[] };
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

/** First key part of every explore index, for the task index consistency check. */
export const EXPLORE_INDEX_ROOTS: readonly string[] = [
  "xp_tasks",
  "xp_by_cell",
  "xp_by_point",
  "xp_by_country",
  "xp_by_name",
  "xp_w",
  "xp_overflow",
];

/** First key part of every explore counter (the word dictionary is one). */
export const EXPLORE_COUNTER_ROOTS: readonly string[] = ["xp_words", "xp_we", "xp_counts"];

/** One index entry of a task state. */
export interface IndexEntry {
  key: Deno.KvKey;
  value: unknown;
}

/**
 * A geo index layer: city points, or radius-type circles up to `maxRadiusKm`, indexed by their
 * centre at `precisions` and searched with the circle widened by `maxRadiusKm`.
 */
export interface GeoLayer {
  name: string;
  maxRadiusKm: number;
  precisions: readonly number[];
}

// Radius classes keep the widening small for small circles: a 10 km task is searched as 10 + 25
// km, not 10 + 500. Larger classes need only coarse cells, since their search circle is large.
export const GEO_LAYERS: readonly GeoLayer[] = [
  { name: "c", maxRadiusKm: 0, precisions: [2, 3, 4] },
  { name: "r25", maxRadiusKm: 25, precisions: [2, 3, 4] },
  { name: "r100", maxRadiusKm: 100, precisions: [2, 3] },
  { name: "r500", maxRadiusKm: 500, precisions: [2] },
];

/** Geohash length of the point entries (`explore.byPoint`): cells of about 38 x 19 m. */
export const POINT_PRECISION = 8;

/** Precision of the per-cell counters that estimate how many tasks a circle holds. */
export const COUNT_PRECISION = 2;

/**
 * Word entries are ordered by zone, then time, so that a search within a circle reads only the
 * word's entries that can reach it. A task of a layer that reaches at most `NEAR_REACH_KM` beyond
 * its centre is in the near zone of the `COUNT_PRECISION` cell of its centre; the largest radius
 * class in the far zone of its precision-1 cell; a task without a geo layer (country, world) in
 * the zone that no circle reads.
 */
export const NEAR_REACH_KM = 100;
export const FAR_ZONE_PRECISION = 1;
/** Far zones are marked with a character no geohash holds, so they never equal a near zone. */
export const FAR_ZONE_MARK = "~";
export const NO_ZONE = "-";

/** The word zone of a task's location (see `NEAR_REACH_KM`). */
export function wordZone(loc: Location): string {
  const layer = layerOf(loc.type, loc.radiusKm);
  if (!layer) return NO_ZONE;
  const [lon, lat] = loc.coordinates;
  if (layer.maxRadiusKm <= NEAR_REACH_KM) return geohashEncode(lon, lat, COUNT_PRECISION);
  return FAR_ZONE_MARK + geohashEncode(lon, lat, FAR_ZONE_PRECISION);
}

/**
 * Most distinct words indexed per task; a task with more is listed in the overflow index instead,
 * which every search also reads. Keeps a whole edit (old words out, new in, each with its
 * counter) well under the 1000 mutations an atomic allows.
 */
export const MAX_INDEXED_WORDS = 100;

/** The geo layer a location is indexed in, or null when it takes no part in geo queries. */
export function layerOf(type: Location["type"], radiusKm = 0): GeoLayer | null {
  if (type === "city") return GEO_LAYERS[0];
  if (type !== "radius") return null;
  for (const layer of GEO_LAYERS.slice(1)) if (radiusKm <= layer.maxRadiusKm) return layer;
  return GEO_LAYERS[GEO_LAYERS.length - 1];
}

export function nameKind(type: Location["type"]): NameKind {
  return type === "city" ? "city" : "other";
}

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

function itemOf(task: ExploreTask): StoredExploreItem {
  return { ...toTaskListItem(task), location: task.location };
}

/** Every explore index entry of a task state; none unless the task is published and live. */
export function exploreIndexEntries(task: ExploreTask): IndexEntry[] {
  if (!isExplorable(task)) return [];
  const ok = task.orderKey;
  const facet = facetOf(task);
  const terms = searchTerms(task);
  const unpacked: ExploreCard = { item: itemOf(task), userId: task.userId };
  const card = packCard(unpacked);
  const doc = packDoc({ ...unpacked, terms });
  const loc = task.location;
  const entries: IndexEntry[] = [{ key: explore.all(paymentOf(task.budget), ok), value: doc }];
  const layer = layerOf(loc.type, loc.radiusKm);
  const [lon, lat] = loc.coordinates;
  if (layer) {
    const finest = geohashEncode(lon, lat, Math.max(...layer.precisions));
    for (const p of layer.precisions) {
      entries.push({ key: explore.byCell(layer.name, finest.slice(0, p), ok), value: card });
    }
    const point = geohashEncode(lon, lat, POINT_PRECISION);
    entries.push({ key: explore.byPoint(layer.name, point, ok), value: card });
  }
  if (loc.countryCode) entries.push({ key: explore.byCountry(loc.countryCode, ok), value: card });
  const { name } = readFacet(facet);
  entries.push({ key: explore.byName(name, nameKind(loc.type), ok), value: card });
  const indexed = indexedWords(terms);
  if (indexed.length > MAX_INDEXED_WORDS) {
    entries.push({ key: explore.overflow(ok), value: facet });
  } else {
    const zone = wordZone(loc);
    const paid = task.budget > 0;
    const epoch = epochOf(ok);
    for (const word of indexed) {
      entries.push({ key: explore.byWord(word, epoch, zone, ok), value: paid });
    }
  }
  return entries;
}

/** The Deno.KvU64 counters a task state counts one towards; none unless explorable. */
export function exploreCounterKeys(task: ExploreTask): Deno.KvKey[] {
  if (!isExplorable(task)) return [];
  const loc = task.location;
  const keys: Deno.KvKey[] = [explore.countByPayment(paymentOf(task.budget))];
  const layer = layerOf(loc.type, loc.radiusKm);
  if (layer) {
    const [lon, lat] = loc.coordinates;
    keys.push(explore.count("cell", layer.name, geohashEncode(lon, lat, COUNT_PRECISION)));
  }
  if (loc.countryCode) keys.push(explore.count("country", loc.countryCode));
  keys.push(explore.count("name", normalizeName(loc.name), nameKind(loc.type)));
  const indexed = indexedWords(searchTerms(task));
  if (indexed.length > MAX_INDEXED_WORDS) keys.push(explore.count("overflow"));
  else {
    const zone = wordZone(loc);
    const epoch = epochOf(task.orderKey);
    for (const word of indexed) keys.push(explore.word(word, zone), explore.wordEpoch(word, epoch));
  }
  return keys;
}
