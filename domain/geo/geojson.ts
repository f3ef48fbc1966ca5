/**
 * Explore as GeoJSON (RFC 7946) for map clients: a FeatureCollection of Point features at each
 * task's coordinates, the explore item as `properties`.
 */
import { z } from "zod";
import { ExploreItem } from "../explore.ts";

export const GEOJSON_MEDIA_TYPE = "application/geo+json";

export const ExploreFeature = z.object({
  type: z.literal("Feature"),
  id: z.string(),
  geometry: z.object({
    type: z.literal("Point"),
    coordinates: z.tuple([z.number(), z.number()]).describe("[longitude, latitude]"),
  }),
  properties: ExploreItem,
}).meta({ id: "ExploreFeature" });

export const ExploreFeatureCollection = z.object({
  type: z.literal("FeatureCollection"),
  features: z.array(ExploreFeature),
}).meta({ id: "ExploreFeatureCollection" });
export type ExploreFeatureCollection = z.infer<typeof ExploreFeatureCollection>;

/** The page's items as features; a radius-type task is its centre (`properties.location`). */
export function toFeatureCollection(items: ExploreItem[]): ExploreFeatureCollection {
  return {
    type: "FeatureCollection",
    features: items.map((item) => ({
      type: "Feature",
      id: item.id,
      geometry: { type: "Point", coordinates: item.location.coordinates },
      properties: item,
    })),
  };
}

/** True when the Accept header asks for GeoJSON (any q above 0) rather than plain JSON first. */
export function wantsGeoJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(",").some((part) => {
    const [type, ...params] = part.trim().split(";").map((s) => s.trim());
    const q = params.find((p) => p.startsWith("q="));
    return type.toLowerCase() === GEOJSON_MEDIA_TYPE && (!q || Number(q.slice(2)) > 0);
  });
}
