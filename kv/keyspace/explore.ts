/** Explore's index keys: documents, geo cells and points, names, countries, words and counters. */
import type { Payment } from "../../domain/tasks/task.ts";

/**
 * Explore indexes over published tasks (see kv/explore/index/entries.ts). Roots are short on
 * purpose: each is repeated in some twenty entries per task, millions of times over. Every entry
 * ends with the task's order key, so each prefix lists newest first with `reverse: true`.
 */
export const explore = {
  /** The explore document of a task (item, search terms, facet), by payment class. */
  all: (payment: Payment, orderKey: string): Deno.KvKey => [
    "xp_tasks",
    paymentPart(payment),
    orderKey,
  ],
  allPrefix: (payment: Payment): Deno.KvKey => ["xp_tasks", paymentPart(payment)],
  /**
   * A task's document in one list of every class, newest first: what a page without filters, or
   * searching by words no index drives, reads in one list rather than one a class.
   */
  newest: (orderKey: string): Deno.KvKey => ["xp_new", orderKey],
  newestPrefix: (): Deno.KvKey => ["xp_new"],
  /**
   * A cell layer's geohash cell (precision = cell length; `CELL_LAYERS`: by the task's centre, or
   * by every cell its disc touches); value: card.
   */
  byCell: (layer: string, cell: string, orderKey: string): Deno.KvKey => [
    "xp_by_cell",
    layer,
    cell,
    orderKey,
  ],
  byCellPrefix: (layer: string, cell: string): Deno.KvKey => ["xp_by_cell", layer, cell],
  /**
   * A layer's cells of one length from `first` to `last` in key order, as one range: exact only
   * where that length is the layer's finest (no finer cell sorts between them).
   */
  byCellRange: (
    layer: string,
    first: string,
    last: string,
  ): { start: Deno.KvKey; end: Deno.KvKey } => ({
    start: ["xp_by_cell", layer, first],
    end: ["xp_by_cell", layer, `${last}~`],
  }),
  /** Every geo entry of every layer (checks and tests). */
  byCellRoot: (): Deno.KvKey => ["xp_by_cell"],
  /**
   * A geo-placed task by its fine geohash (`POINT_PRECISION`), every geo class in one key space;
   * value: card (its location says the class). One entry per task that a key range lists at any
   * coarser precision (`byPointRange`), for nearest-first walks that go as deep as the density
   * needs and read a cell's tasks of every class in one list.
   */
  byPoint: (hash: string, orderKey: string): Deno.KvKey => ["xp_pt", hash, orderKey],
  /** The entries whose fine geohash starts with `cell` ("~" sorts after base32). */
  byPointRange: (cell: string): { start: Deno.KvKey; end: Deno.KvKey } => ({
    start: ["xp_pt", cell],
    end: ["xp_pt", `${cell}~`],
  }),
  /** The point entries of layouts up to 12, by class first, which the rebuild removes. */
  byPointOldRoot: (): Deno.KvKey => ["xp_by_point"],
  /** Upper-case country code; value: facet. */
  byCountry: (countryCode: string, orderKey: string): Deno.KvKey => [
    "xp_by_country",
    countryCode,
    orderKey,
  ],
  byCountryPrefix: (countryCode: string): Deno.KvKey => ["xp_by_country", countryCode],
  /** Normalized location name, split by city and other types; value: facet. */
  byName: (name: string, kind: NameKind, orderKey: string): Deno.KvKey => [
    "xp_by_name",
    name,
    kind,
    orderKey,
  ],
  byNamePrefix: (name: string, kind: NameKind): Deno.KvKey => ["xp_by_name", name, kind],
  /**
   * One normalized word of title or description, by epoch (`epochOf` the order key: when the
   * task was created) and zone (`wordZone`: where the task can match a circle), newest first
   * within each; value: true when paid, false when pro-bono.
   */
  byWord: (word: string, epoch: string, zone: string, orderKey: string): Deno.KvKey => [
    "xp_w",
    word,
    epoch,
    zone,
    orderKey,
  ],
  byWordPrefix: (word: string): Deno.KvKey => ["xp_w", word],
  byWordEpochPrefix: (word: string, epoch: string): Deno.KvKey => ["xp_w", word, epoch],
  byWordCellPrefix: (word: string, epoch: string, zone: string): Deno.KvKey => [
    "xp_w",
    word,
    epoch,
    zone,
  ],
  byWordRoot: (): Deno.KvKey => ["xp_w"],
  /** The word index of layouts up to 6, by word alone, which the rebuild removes. */
  byWordOldRoot: (): Deno.KvKey => ["xp_by_word"],
  /** The word-zone index of layouts 3 to 5, which the rebuild removes (checks and tests). */
  byWordZoneRoot: (): Deno.KvKey => ["xp_by_word_zone"],
  /** Tasks with more distinct words than are indexed; every search reads them too. */
  overflow: (orderKey: string): Deno.KvKey => ["xp_overflow", orderKey],
  overflowPrefix: (): Deno.KvKey => ["xp_overflow"],
  /** Dictionary: Deno.KvU64 count of published tasks holding the word, by zone (`byWord`). */
  word: (word: string, zone: string): Deno.KvKey => ["xp_words", word, zone],
  wordsPrefix: (): Deno.KvKey => ["xp_words"],
  /** Deno.KvU64 count of published tasks holding the word, by epoch (`byWord`), all zones. */
  wordEpoch: (word: string, epoch: string): Deno.KvKey => ["xp_we", word, epoch],
  wordEpochsPrefix: (): Deno.KvKey => ["xp_we"],
  /**
   * The word of a word entry or word counter, and the part after it: the epoch of a `byWord`
   * entry or a `wordEpoch` counter, the zone of a `word` counter.
   */
  wordParts: (key: Deno.KvKey): { word: string; part: string } => ({
    word: key[1] as string,
    part: key[2] as string,
  }),
  /** Deno.KvU64 count of published tasks of one payment class. */
  countByPayment: (payment: Payment): Deno.KvKey => ["xp_counts", "paid", paymentPart(payment)],
  /** Deno.KvU64 count of the geo-placed tasks of every class centred in a counter cell. */
  layersCount: (cell: string): Deno.KvKey => ["xp_counts", "layers", cell],
  /** Deno.KvU64 counters the planner reads to pick the most selective index. */
  count: (...parts: (string | number)[]): Deno.KvKey => ["xp_counts", ...parts],
};

/** How explore keys spell a payment class (the API's `Payment`), kept as first written. */
function paymentPart(payment: Payment): string {
  return payment === "Paid" ? "paid" : "free";
}
/** Name partition: city-type tasks apart, for cityName. */
export type NameKind = "city" | "other";
