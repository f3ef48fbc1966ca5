/**
 * The explore index entries and counters of one task state, as pure data: the task write moves
 * from the entries of the old state to those of the new one in its own atomic.
 */
import { geohashEncode } from "../../../domain/geo/geohash.ts";
import { coverCircle } from "../../../domain/geo/geohash_cover.ts";
import { type ExploreTask, isExplorable, normalizeName } from "../../../domain/explore.ts";
import { type Location, paymentOf, searchTerms } from "../../../domain/tasks/task.ts";
import { toTaskListItem } from "../../../domain/tasks/task_view.ts";
import { indexedWords } from "./indexed_words.ts";
import { epochOf } from "./epochs.ts";
import { explore, type NameKind } from "../../keyspace.ts";
import { type ExploreCard, packCard, packDoc, type StoredExploreItem } from "./card.ts";
import { facetOf, readFacet } from "./facet.ts";

/** First key part of every explore index, for the task index consistency check. */
export const EXPLORE_INDEX_ROOTS: readonly string[] = [
  "xp_tasks",
  "xp_new",
  "xp_by_cell",
  "xp_pt",
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

/** Precision of the per-cell counters that estimate how many tasks a circle holds. */
export const COUNT_PRECISION = 2;

/**
 * A geo class: city points, or radius-type circles up to `maxRadiusKm`, whose point entries and
 * centre counters (`count("cell", name, …)`) are keyed by their centre, and whose cell entries
 * are at `precisions`: by centre, or, with `disc`, by every cell the task's disc touches.
 */
export interface GeoLayer {
  name: string;
  maxRadiusKm: number;
  precisions: readonly number[];
  disc?: boolean;
  /** Most cells of each of `precisions` a disc may touch and be indexed by them (`MAX_DISC_CELLS`). */
  maxDiscCells?: readonly number[];
}

// Radius classes keep the widening small for small circles: a 10 km task is searched as 10 + 25
// km, not 10 + 500. Larger classes need only coarse cells, since their search circle is large,
// and are keyed by their disc: a circle then reads them with its own cover, not one widened by
// 100 or 500 km (the 25 km class by its disc would cost an entry a task more). The 500 km class
// is in its precision-3 cells too: a precision-2 cell is so much larger than a small circle that
// most of the class's tasks in the cells a small circle read were far outside it.
export const GEO_LAYERS: readonly GeoLayer[] = [
  { name: "c", maxRadiusKm: 0, precisions: [2, 3, 4] },
  { name: "r25", maxRadiusKm: 25, precisions: [2, 3, 4] },
  { name: "r100", maxRadiusKm: 100, precisions: [2, 3], disc: true },
  { name: "r500", maxRadiusKm: 500, precisions: [2, 3], disc: true, maxDiscCells: [16, 128] },
];

/**
 * A layer of cell entries (`explore.byCell`) and its counters (`count("cell", name, …)`, at
 * `countPrecision`), of one class: keyed by centre and read with a circle widened by `extraKm`,
 * or (`disc`) keyed by every cell the task's disc touches and read with the circle's own cover.
 * A disc class's tasks past `MAX_DISC_CELLS` are in its centre-keyed layer instead, at
 * `FALLBACK_PRECISION` alone: few tasks are there (discs near a pole), and a circle widened by
 * 100 or 500 km reads a few of its counters rather than dozens.
 */
export interface CellLayer {
  name: string;
  of: GeoLayer;
  disc: boolean;
  extraKm: number;
  precisions: readonly number[];
  countPrecision: number;
}

/** Precision of the cells and counters of the layers past `MAX_DISC_CELLS` (45° cells). */
export const FALLBACK_PRECISION = 1;

export const CELL_LAYERS: readonly CellLayer[] = GEO_LAYERS.flatMap((of): CellLayer[] => {
  const centre = { of, disc: false, extraKm: of.maxRadiusKm, countPrecision: COUNT_PRECISION };
  if (!of.disc) return [{ name: of.name, ...centre, precisions: of.precisions }];
  return [
    { ...centre, name: `${of.name}d`, disc: true, extraKm: 0, precisions: of.precisions },
    {
      ...centre,
      name: `${of.name}x`,
      precisions: [FALLBACK_PRECISION],
      countPrecision: FALLBACK_PRECISION,
    },
  ];
});

/**
 * Most cells of one precision a task's disc may touch and be indexed by them, unless its layer
 * says otherwise (`maxDiscCells`): past it (a disc near a pole touches a ring of cells) the task
 * is indexed by its centre, so that a write stays small. A 500 km disc touches up to ~100
 * precision-3 cells at the latitudes people live at, hence its class's own bound there.
 */
export const MAX_DISC_CELLS = 16;

/**
 * The cells a task of a disc class is indexed in, by precision, or null past its layer's most
 * cells at some precision (it is then indexed by its centre).
 */
export function discCells(
  layer: GeoLayer,
  { lon, lat, radiusKm }: { lon: number; lat: number; radiusKm: number },
): string[][] | null {
  const cells: string[][] = [];
  for (const [i, p] of layer.precisions.entries()) {
    const most = layer.maxDiscCells?.[i] ?? MAX_DISC_CELLS;
    const cover = coverCircle({ lon, lat, radiusKm }, { maxCells: most, precisions: [p] });
    if (cover.cells.length > most) return null;
    cells.push(cover.cells);
  }
  return cells;
}

/** The cell layer and cells (by precision) a geo-placed task is indexed in. */
export function taskCells(
  layer: GeoLayer,
  { lon, lat, radiusKm }: { lon: number; lat: number; radiusKm: number },
): { layer: CellLayer; cells: string[][] } {
  const own = CELL_LAYERS.filter((c) => c.of === layer);
  if (layer.disc) {
    const cells = discCells(layer, { lon, lat, radiusKm });
    if (cells) return { layer: own.find((c) => c.disc)!, cells };
  }
  const centre = own.find((c) => !c.disc)!;
  const finest = geohashEncode(lon, lat, Math.max(...centre.precisions));
  return { layer: centre, cells: centre.precisions.map((p) => [finest.slice(0, p)]) };
}

/** Geohash length of the point entries (`explore.byPoint`): cells of about 38 x 19 m. */
export const POINT_PRECISION = 8;

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

/**
 * A word entry's value: the payment class, and for a geo-placed task where it is (hundredths of
 * a degree) and its radius, so that a search within a circle rejects it before its document.
 */
export type WordEntry = boolean | [paid: boolean, lon100: number, lat100: number, radiusKm: number];

export function wordEntry(paid: boolean, placed: Location | null): WordEntry {
  if (!placed) return paid;
  const [lon, lat] = placed.coordinates;
  return [paid, Math.round(lon * 100), Math.round(lat * 100), placed.radiusKm ?? 0];
}

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
  const entries: IndexEntry[] = [
    { key: explore.all(paymentOf(task.budget), ok), value: doc },
    { key: explore.newest(ok), value: doc },
  ];
  const layer = layerOf(loc.type, loc.radiusKm);
  const [lon, lat] = loc.coordinates;
  if (layer) {
    const placed = taskCells(layer, { lon, lat, radiusKm: loc.radiusKm ?? 0 });
    for (const cells of placed.cells) {
      for (const cell of cells) {
        entries.push({ key: explore.byCell(placed.layer.name, cell, ok), value: card });
      }
    }
    const point = geohashEncode(lon, lat, POINT_PRECISION);
    entries.push({ key: explore.byPoint(point, ok), value: card });
  }
  if (loc.countryCode) entries.push({ key: explore.byCountry(loc.countryCode, ok), value: card });
  const { name } = readFacet(facet);
  entries.push({ key: explore.byName(name, nameKind(loc.type), ok), value: card });
  const indexed = indexedWords(terms);
  if (indexed.length > MAX_INDEXED_WORDS) {
    entries.push({ key: explore.overflow(ok), value: facet });
  } else {
    const zone = wordZone(loc);
    const value = wordEntry(task.budget > 0, layer ? loc : null);
    const epoch = epochOf(ok);
    for (const word of indexed) {
      entries.push({ key: explore.byWord(word, epoch, zone, ok), value });
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
    const centre = geohashEncode(lon, lat, COUNT_PRECISION);
    keys.push(explore.count("cell", layer.name, centre), explore.layersCount(centre));
    // The cell layer's own counters, at the counters' precision: by centre they would equal the
    // class's, so only the disc-keyed layer and the one past the cap count apart.
    if (layer.disc) {
      const placed = taskCells(layer, { lon, lat, radiusKm: loc.radiusKm ?? 0 });
      const at = layer.precisions.indexOf(COUNT_PRECISION);
      for (const cell of placed.cells[at]) {
        keys.push(explore.count("cell", placed.layer.name, cell));
      }
    }
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
