/**
 * GET /tasks/explore: everyone's published tasks, filtered, newest first or nearest first,
 * cursor paged; as JSON, or as a GeoJSON FeatureCollection for map clients.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import {
  checkDistanceSort,
  checkGeoTogether,
  exploreFilterFields,
  type ExploreFilters,
  exploreFilters,
  ExploreItem,
} from "../../domain/explore.ts";
import {
  ExploreFeatureCollection,
  GEOJSON_MEDIA_TYPE,
  toFeatureCollection,
  wantsGeoJson,
} from "../../domain/geo/geojson.ts";
import { cursorPosition, decodeCursor, encodeCursor, isUlid } from "../../kv/cursor.ts";
import { exploreByDistance } from "../../kv/explore/nearest/explore_distance.ts";
import type { DistancePosition } from "../../kv/explore/nearest/explore_distance_page.ts";
import { exploreTasks } from "../../kv/explore/explore_query.ts";
import { defineRoute, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";
import {
  ConditionalHeaders,
  JSON_UTF8,
  notModified,
  sharedAnswer,
  SharedCacheHeaders,
} from "../http/shared_cache.ts";

const ExploreQuery = CursorQuery.extend(exploreFilterFields)
  .superRefine(checkGeoTogether)
  .superRefine(checkDistanceSort);

const page = cursorPage(ExploreItem, "One page of published tasks");

const exploreRoute = defineRoute("public", {
  method: "get",
  path: "/tasks/explore",
  tags: ["Tasks"],
  summary: "Browse everyone's published tasks, newest or nearest first (cursor paging)",
  description: "Anonymous pages may be kept by shared caches for `PUBLIC_CACHE_SECONDS` " +
    "(default 5): a task completed or deleted meanwhile may still show that long. Pages for a " +
    "request with a credential are never stored. Filters combine with AND. A geo query (latitude, longitude and radiusKm, all " +
    "three) selects city-type tasks inside the circle and radius-type tasks whose own circle " +
    "reaches it, and adds `distanceKm` to each item. `bbox` selects city- and radius-type tasks " +
    "whose coordinates lie in the box. `sort=distance` (with a geo query) orders nearest first. " +
    "A page may hold fewer items than `limit` while `X-Next-Cursor` is present (a page stops " +
    "after a fixed amount of storage work); only a page without `X-Next-Cursor` is the last, " +
    "and the page a cursor leads to may be empty when the tasks that followed left meanwhile. " +
    "With `Accept: application/geo+json` the page is a GeoJSON FeatureCollection (RFC 7946): " +
    "one Point feature per task, the item as its `properties`.",
  request: { query: ExploreQuery, headers: ConditionalHeaders },
  responses: {
    200: {
      ...page,
      headers: page.headers.extend(SharedCacheHeaders.shape),
      content: {
        ...page.content,
        [GEOJSON_MEDIA_TYPE]: { schema: ExploreFeatureCollection },
      },
    },
    ...notModified,
    ...problems(400, 401, 429),
  },
});

/** What an explore cursor is bound to: the normalized filters and the order, limit apart. */
function cursorScope(filters: ExploreFilters, sort: string) {
  return {
    listing: "explore",
    search: filters.search.join(" "),
    payment: filters.payment,
    cityName: filters.cityName,
    regionName: filters.regionName,
    countryCode: filters.countryCode,
    latitude: filters.geo?.lat,
    longitude: filters.geo?.lon,
    radiusKm: filters.geo?.radiusKm,
    hasSpots: filters.hasSpots,
    bbox: filters.bbox
      ? [filters.bbox.minLon, filters.bbox.minLat, filters.bbox.maxLon, filters.bbox.maxLat]
        .join(",")
      : undefined,
    sort: sort === "newest" ? undefined : sort,
  };
}

// A nearest-first position: the exact distance as JavaScript prints it (it reads back to the
// same double), then the order key.
const encodeDistance = (p: DistancePosition) => `${p.d}_${p.key}`;
function decodeDistance(position: string): DistancePosition | null {
  const [d, key] = position.split("_");
  const value = Number(d);
  return Number.isFinite(value) && value >= 0 && isUlid(key ?? "") ? { d: value, key } : null;
}

/** Registers GET /tasks/explore. */
export function registerExplore(api: OpenAPIHono<AppEnv>) {
  api.openapi(exploreRoute, async (c) => {
    const { kv } = c.get("deps");
    const query = c.req.valid("query");
    const filters = exploreFilters(query);
    const scope = cursorScope(filters, query.sort);
    let items: ExploreItem[];
    let next: string | null;
    if (query.sort === "distance") {
      const after = query.cursor
        ? decodeDistance(
          await decodeCursor(query.cursor, scope, (p) => decodeDistance(p) !== null),
        )
        : null;
      const page = await exploreByDistance(kv, { filters, after, limit: query.limit });
      items = page.items;
      next = page.next ? encodeDistance(page.next) : null;
    } else {
      const after = await cursorPosition(query.cursor, scope);
      const page = await exploreTasks(kv, { filters, after, limit: query.limit });
      items = page.items;
      next = page.next;
    }
    const nextCursor = next ? await encodeCursor(next, scope) : null;
    setNextPage(c, nextCursor);
    c.header("Vary", "Accept", { append: true });
    const answer = wantsGeoJson(c.req.header("Accept"))
      ? sharedAnswer(c, {
        body: JSON.stringify(toFeatureCollection(items)),
        contentType: `${GEOJSON_MEDIA_TYPE}; charset=utf-8`,
        nextCursor,
      })
      : sharedAnswer(c, { body: JSON.stringify(items), contentType: JSON_UTF8, nextCursor });
    return answer as unknown as TypedResponse<ExploreItem[], 200, "json">;
  });
}
