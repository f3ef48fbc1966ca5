/** Task alert keys: records, counts, the inverted index and matches. */

/**
 * Task alerts (kv/alerts/): records, a per-account count that serializes creation (the limit of
 * 20), the inverted index a new task reads (docs/alerts.md) and each alert's matches.
 */
export const alerts = {
  record: (userId: string, alertId: string): Deno.KvKey => ["alerts", userId, alertId],
  byUserPrefix: (userId: string): Deno.KvKey => ["alerts", userId],
  count: (userId: string): Deno.KvKey => ["alert_counts", userId],
  /**
   * Layout 1 (before pages): one alert filed under a name, country or geo cell; value: its
   * filters. Read while an instance knows some remain; moved to pages at start-up (kv/alerts/legacy.ts).
   */
  legacyRoot: (): Deno.KvKey => ["alert_index"],
  byName: (name: string, alertId: string): Deno.KvKey => ["alert_index", "n", name, alertId],
  byNamePrefix: (name: string): Deno.KvKey => ["alert_index", "n", name],
  byCountry: (code: string, alertId: string): Deno.KvKey => ["alert_index", "c", code, alertId],
  byCountryPrefix: (code: string): Deno.KvKey => ["alert_index", "c", code],
  byCell: (layer: number, cell: string, alertId: string): Deno.KvKey => [
    "alert_index",
    "g",
    layer,
    cell,
    alertId,
  ],
  byCellPrefix: (layer: number, cell: string): Deno.KvKey => ["alert_index", "g", layer, cell],
  /** A page of the alerts under a word's first letters (or "*"): `getMany` reads ten at once. */
  wordPage: (prefix: string, page: number): Deno.KvKey => ["alert_words", prefix, page],
  wordPagesRoot: (): Deno.KvKey => ["alert_words"],
  /** The index layout the store is brought up to (kv/alerts/legacy.ts); absent before layout 2. */
  layout: (): Deno.KvKey => ["meta", "alert_index_layout"],
  /** A page of the alerts under a name ("n"), a country ("c") or a geo layer's cell ("g"). */
  placePage: (family: string, place: string, page: number): Deno.KvKey => [
    "alert_pages",
    family,
    place,
    page,
  ],
  /**
   * A place's stamp: a token per page, rewritten with any of them, so that a task reads the small
   * stamps and only the pages its instance has not decoded under those tokens.
   */
  stamp: (family: string, place: string): Deno.KvKey => ["alert_stamps", family, place],
  /**
   * Geo pages are written under a check of their shard's lock, not of each page: a geo alert
   * sits on up to 32 pages, and an atomic holds 10 checks.
   */
  geoLock: (shard: number): Deno.KvKey => ["alert_page_locks", shard],
  /** A task an alert matched, newest first; its presence makes the match happen once. */
  match: (alertId: string, orderKey: string): Deno.KvKey => ["alert_matches", alertId, orderKey],
  matchesPrefix: (alertId: string): Deno.KvKey => ["alert_matches", alertId],
  /** A task's matching: a marker per part of the alerts it recorded ("whole") or cut ("split"). */
  matchPart: (taskId: string, part: string): Deno.KvKey => ["alert_match_parts", taskId, part],
  matchPartsPrefix: (taskId: string): Deno.KvKey => ["alert_match_parts", taskId],
};
