/** GET /tasks/explore: everyone's published tasks, filtered, newest first, cursor paged. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import {
  checkGeoTogether,
  exploreFilterFields,
  type ExploreFilters,
  exploreFilters,
  ExploreItem,
} from "../domain/explore.ts";
import { cursorPosition, encodeCursor } from "../kv/cursor.ts";
import { exploreTasks } from "../kv/explore_query.ts";
import { defineRoute, problems } from "./define.ts";
import type { AppEnv } from "./env.ts";
import { cursorPage, CursorQuery, setNextPage } from "./paging.ts";

const ExploreQuery = CursorQuery.extend(exploreFilterFields).superRefine(checkGeoTogether);

const exploreRoute = defineRoute("public", {
  method: "get",
  path: "/tasks/explore",
  tags: ["Tasks"],
  summary: "Browse everyone's published tasks, newest first (cursor paging)",
  description: "Filters combine with AND. A geo query (latitude, longitude and radiusKm, all " +
    "three) selects city-type tasks inside the circle and radius-type tasks whose own circle " +
    "reaches it, and adds `distanceKm` to each item. A page may hold fewer items than `limit` " +
    "while `X-Next-Cursor` is present (a page stops after a fixed amount of storage work); only " +
    "a page without `X-Next-Cursor` is the last.",
  request: { query: ExploreQuery },
  responses: {
    200: cursorPage(ExploreItem, "One page of published tasks"),
    ...problems(400, 401, 429),
  },
});

/** What an explore cursor is bound to: the normalized filters, limit apart. */
function cursorScope(filters: ExploreFilters) {
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
  };
}

/** Registers GET /tasks/explore; it must come before the /tasks/{id} routes. */
export function registerExplore(api: OpenAPIHono<AppEnv>) {
  api.openapi(exploreRoute, async (c) => {
    const { kv } = c.var.deps;
    const query = c.req.valid("query");
    const filters = exploreFilters(query);
    const scope = cursorScope(filters);
    const after = await cursorPosition(query.cursor, scope);
    const page = await exploreTasks(kv, filters, after, query.limit);
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.items, 200);
  });
}
