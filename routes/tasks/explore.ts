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
  exploreFilters,
  ExploreItem,
} from "../../domain/explore.ts";
import {
  ExploreFeatureCollection,
  GEOJSON_MEDIA_TYPE,
  toFeatureCollection,
  wantsGeoJson,
} from "../../domain/geo/geojson.ts";
import { explorePage } from "../../kv/explore/mod.ts";
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

/** Registers GET /tasks/explore. */
export function registerExplore(api: OpenAPIHono<AppEnv>) {
  api.openapi(exploreRoute, async (c) => {
    const { kv } = c.get("deps");
    const query = c.req.valid("query");
    const { items, nextCursor } = await explorePage(kv, {
      filters: exploreFilters(query),
      sort: query.sort,
      cursor: query.cursor,
      limit: query.limit,
    });
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
