/**
 * The schema an expert would give explore's tasks in PostGIS, and its bulk load: geography points
 * (a GiST index per radius class) for circles and distance, geometry points (GiST) for lon/lat
 * boxes, a tsvector (GIN) of the domain's words, B-trees per filter ending in the page order.
 */
import { isExplorable, normalizeName } from "../../domain/explore.ts";
import { searchTerms, spotsLeftOf, type TaskRecord } from "../../domain/tasks/task.ts";
import type { Sql } from "./pg_cluster.ts";
import { GEO_CLASSES } from "./pg_queries.ts";

// Lexemes are the domain's own words (normalized, accents and case folded, 32 characters at
// most), given as an array, so no text search configuration splits or stems them again: a query
// word matches as a prefix (`:*`), which is the contract's "every word starts a word".
const TABLE = (t: string) => `
  create table ${t} (
    id uuid not null,
    created_at timestamptz not null,
    explorable boolean not null,
    paid boolean not null,
    spots_left integer not null,
    loc_type text not null,
    name_norm text not null,
    country text,
    lon float8 not null,
    lat float8 not null,
    radius_km float8 not null,
    terms text[] not null,
    geog geography(Point, 4326) generated always as (
      case when loc_type in ('city', 'radius')
        then st_setsrid(st_makepoint(case when abs(lat) = 90 then 0 else lon end, lat), 4326)
          ::geography end) stored,
    geom geometry(Point, 4326) generated always as (
      case when loc_type in ('city', 'radius')
        then st_setsrid(st_makepoint(lon, lat), 4326) end) stored,
    tsv tsvector generated always as (array_to_tsvector(terms)) stored
  )`;

// A pole has one longitude: PostGIS measures the same pole given at two longitudes a few ulps
// apart, which would order tasks there by longitude instead of newest first (the contract's tie).

// Every index holds explorable tasks only (published, not deleted), the rest never being asked
// for; each B-tree ends in the page order, so a filter's newest page is an index range read.
const INDEXES = (t: string) => [
  `alter table ${t} add primary key (id)`,
  `create index ${t}_newest on ${t} (created_at desc, id desc) where explorable`,
  `create index ${t}_paid on ${t} (paid, created_at desc, id desc) where explorable`,
  `create index ${t}_country on ${t} (country, created_at desc, id desc) where explorable`,
  `create index ${t}_name on ${t} (name_norm, created_at desc, id desc) where explorable`,
  ...GEO_CLASSES.map((c) =>
    `create index ${t}_geog_${c.name} on ${t} using gist (geog) where explorable and ${c.where}`
  ),
  `create index ${t}_geom on ${t} using gist (geom) where explorable`,
  `create index ${t}_tsv on ${t} using gin (tsv) where explorable`,
];

/** One task as a row of the table. */
export function taskRow(task: TaskRecord) {
  const loc = task.location;
  return {
    id: task.id,
    created_at: task.createdAt,
    explorable: isExplorable(task),
    paid: task.budget > 0,
    spots_left: spotsLeftOf(task),
    loc_type: loc.type,
    name_norm: normalizeName(loc.name),
    country: loc.countryCode ?? null,
    lon: loc.coordinates[0],
    lat: loc.coordinates[1],
    radius_km: loc.radiusKm ?? 0,
    terms: searchTerms(task),
  };
}

const BATCH = 1_000;

/** What a load took and left: its time and the tables' size with their indexes. */
export interface PgLoad {
  ms: number;
  bytes: number;
}

/** Creates `table`, loads `count` tasks `task(i)` into it, then builds its indexes and stats. */
export async function loadPeer(
  sql: Sql,
  { table, count, task }: { table: string; count: number; task: (i: number) => TaskRecord },
): Promise<PgLoad> {
  const t0 = performance.now();
  await sql.unsafe(`drop table if exists ${table}`);
  await sql.unsafe(TABLE(table));
  for (let start = 0; start < count; start += BATCH) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) rows.push(taskRow(task(i)));
    await sql`insert into ${sql(table)} ${sql(rows)}`;
  }
  for (const ddl of INDEXES(table)) await sql.unsafe(ddl);
  await sql.unsafe(`vacuum analyze ${table}`);
  const ms = performance.now() - t0;
  const [{ bytes }] = await sql`select pg_total_relation_size(${table}) :: float8 as bytes`;
  return { ms, bytes };
}
