/**
 * Explore's filters as the SQL an expert would send PostGIS over the peer schema (pg_schema.ts):
 * the same page, newest first (createdAt, then id, descending) or nearest first (ties newest
 * first), each filter as the contract states it (docs/contract.md section 7).
 */
import type { ExploreFilters } from "../../domain/explore.ts";
import { EARTH_RADIUS_KM } from "../../domain/geo/geo.ts";
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
  let distance = "";
  if (filters.geo) {
    const { lon, lat, radiusKm } = filters.geo;
    const point = `st_setsrid(st_makepoint(${p(lon)}, ${p(lat)}), 4326)::geography`;
    const r = p(radiusKm * 1000);
    // A radius-type task matches when its own circle reaches the search circle: within the sum
    // of both radii; the constant widest reach lets the GiST index find its candidates.
    const wide = p((radiusKm + MAX_TASK_RADIUS_KM) * 1000);
    where.push(
      `((loc_type = 'city' and st_dwithin(geog, ${point}, ${r}, false)) or ` +
        `(loc_type = 'radius' and st_dwithin(geog, ${point}, ${wide}, false) and ` +
        `st_dwithin(geog, ${point}, ${r} + radius_km * 1000, false)))`,
    );
    distance = `, st_distance(geog, ${point}, false) / 1000 as d`;
    if (q.sort === "distance") {
      return {
        text: `select id${distance} from ${table} where ${where.join(" and ")} ` +
          `order by geog <-> ${point}, created_at desc, id desc limit ${p(q.limit)}`,
        params,
      };
    }
  }
  return {
    text: `select id${distance} from ${table} where ${where.join(" and ")} ` +
      `order by created_at desc, id desc limit ${p(q.limit)}`,
    params,
  };
}

/** One page's rows from PostGIS: ids, and distances in km on a geo query. */
export async function peerPage(
  sql: Sql,
  query: PeerQuery,
): Promise<{ id: string; d?: number }[]> {
  const rows = await sql.unsafe(query.text, query.params, { prepare: true });
  return rows.map((r) => (r.d === undefined ? { id: r.id } : { id: r.id, d: Number(r.d) }));
}

/** PostGIS measures on the sphere of WGS 84's mean radius; explore on IUGG's, in km. */
export const SPHERES_KM = { explore: EARTH_RADIUS_KM, postgis: 6371.0087714 };
