/**
 * Explore's filters as the SQL an expert would send PostGIS over the peer schema (pg_schema.ts):
 * the same page, newest first (createdAt, then id, descending) or nearest first (ties newest
 * first), each filter as the contract states it (docs/contract.md section 7).
 */
import type { ExploreFilters } from "../../domain/explore.ts";
import type { Sql } from "./pg_cluster.ts";

/** The largest own radius of a radius-type task (the API's bound), for its index-usable reach. */
const MAX_TASK_RADIUS_KM = 500;

/** One page's SQL: its text and parameters. */
export interface PeerQuery {
  text: string;
  params: (string | number | boolean)[];
}

/** A tsquery literal for query words that start words: each quoted as one lexeme, prefix `:*`. */
export function prefixQuery(words: readonly string[]): string {
  return words.map((w) => `'${w.replaceAll("\\", "\\\\").replaceAll("'", "''")}':*`).join(" & ");
}

/**
 * The page's SQL: `limit` rows of `id` (and `d`, the distance in km, on a geo query). Distances
 * are PostGIS's own on its sphere (use_spheroid false): the contract's great-circle distance.
 */
export function peerQuery(
  table: string,
  q: { filters: ExploreFilters; sort: "newest" | "distance"; limit: number },
): PeerQuery {
  const { filters } = q;
  const params: PeerQuery["params"] = [];
  const p = (v: string | number | boolean) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = ["explorable"];
  if (filters.payment !== undefined) where.push(`paid = ${p(filters.payment === "Paid")}`);
  if (filters.hasSpots) where.push("spots_left > 0");
  if (filters.countryCode !== undefined) where.push(`country = ${p(filters.countryCode)}`);
  if (filters.cityName !== undefined) {
    where.push(`loc_type = 'city' and name_norm = ${p(filters.cityName)}`);
  }
  if (filters.regionName !== undefined) where.push(`name_norm = ${p(filters.regionName)}`);
  if (filters.search.length > 0) where.push(`tsv @@ ${p(prefixQuery(filters.search))}::tsquery`);
  if (filters.bbox) {
    const b = filters.bbox;
    // A lon/lat rectangle, edges included: geometry, not geography, whose box edges are great
    // circles. One across the antimeridian is its two halves.
    const env = (w: number, e: number) =>
      `st_intersects(geom, st_makeenvelope(${p(w)}, ${p(b.minLat)}, ${p(e)}, ${
        p(b.maxLat)
      }, 4326))`;
    where.push(
      b.minLon <= b.maxLon
        ? env(b.minLon, b.maxLon)
        : `(${env(b.minLon, 180)} or ${env(-180, b.maxLon)})`,
    );
  }
  const order = "created_at desc, id desc";
  const limit = p(q.limit);
  const filtered = where.join(" and ");
  if (!filters.geo) {
    return {
      text: `select id from ${table} where ${filtered} order by ${order} limit ${limit}`,
      params,
    };
  }
  const { lon, lat, radiusKm } = filters.geo;
  const point = `st_setsrid(st_makepoint(${p(lon)}, ${p(lat)}), 4326)::geography`;
  const r = p(radiusKm * 1000);
  // One branch per index class (pg_schema.ts): city points within the circle, and each radius
  // class within the circle widened by its largest radius, then within the sum of both radii (a
  // radius task matches when its own circle reaches the search circle). Each branch reads its own
  // partial GiST index, newest first or nearest first (KNN), and the union keeps the page.
  const branches = GEO_CLASSES.map(({ where: cls, widenKm }) =>
    `${cls} and st_dwithin(geog, ${point}, ${
      widenKm === 0 ? r : `${r} + ${widenKm * 1000}`
    }, false)` +
    (widenKm === 0 ? "" : ` and st_dwithin(geog, ${point}, ${r} + radius_km * 1000, false)`)
  );
  const columns = `id, created_at, st_distance(geog, ${point}, false) / 1000 as d`;
  if (q.sort === "distance") {
    // Nearest first by KNN (`<->`, the GiST index's order), which orders by distance alone: the
    // limit-th nearest's distance then bounds a second, indexed read that brings every task tied
    // with it, so that ties go newest first as the contract orders them.
    const reach = branches.map((b, i) =>
      `k${i} as (select geog <-> ${point} as k from ${table} where ${filtered} and ${b} ` +
      `order by geog <-> ${point} limit ${limit})`
    );
    const union = branches.map((b, i) =>
      `(select ${columns}, geog <-> ${point} as k from ${table} where ${filtered} and ${b} and ` +
      `st_dwithin(geog, ${point}, (select coalesce(max(k), -1) + 0.001 from k${i}), false))`
    ).join(" union all ");
    return {
      text: `with ${reach.join(", ")} select id, d from (${union}) u ` +
        `order by k, ${order} limit ${limit}`,
      params,
    };
  }
  const union = branches.map((b) =>
    `(select ${columns} from ${table} where ${filtered} and ${b} order by ${order} limit ${limit})`
  ).join(" union all ");
  return { text: `select id, d from (${union}) u order by ${order} limit ${limit}`, params };
}

/** The geo index classes: each one's rows, and the largest own radius among them (km). */
export const GEO_CLASSES = [
  { name: "city", where: "loc_type = 'city'", widenKm: 0 },
  { name: "r25", where: "loc_type = 'radius' and radius_km <= 25", widenKm: 25 },
  {
    name: "r100",
    where: "loc_type = 'radius' and radius_km > 25 and radius_km <= 100",
    widenKm: 100,
  },
  { name: "r500", where: "loc_type = 'radius' and radius_km > 100", widenKm: MAX_TASK_RADIUS_KM },
];

/** One page's rows from PostGIS: ids, and distances in km on a geo query. */
export async function peerPage(
  sql: Sql,
  query: PeerQuery,
): Promise<{ id: string; d?: number }[]> {
  const rows = await sql.unsafe(query.text, query.params, { prepare: true });
  return rows.map((r) => (r.d === undefined ? { id: r.id } : { id: r.id, d: Number(r.d) }));
}
