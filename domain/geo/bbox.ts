/**
 * The `bbox` filter of explore (`minLon,minLat,maxLon,maxLat`, RFC 7946 order): parsing, and
 * whether a point lies in the box, across the antimeridian when minLon > maxLon.
 */
import { z } from "zod";
import type { GeoBox } from "./geo.ts";

/** A box as given: when `minLon > maxLon` it crosses the antimeridian. */
export interface BoundingBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

const NUMBER = /^[+-]?(0|[1-9]\d*)(\.\d+)?$/;

// The same numbers within their bounds, as one pattern for the document: what a regular
// expression cannot say (minLat <= maxLat) is stated in the description.
const LON = String.raw`\s*[+-]?(?:180(?:\.0+)?|(?:1[0-7]\d|[1-9]\d|\d)(?:\.\d+)?)\s*`;
const LAT = String.raw`\s*[+-]?(?:90(?:\.0+)?|(?:[1-8]\d|\d)(?:\.\d+)?)\s*`;
const BBOX_PATTERN = `^${LON},${LAT},${LON},${LAT}$`;

/** `minLon,minLat,maxLon,maxLat` in degrees; minLat <= maxLat; minLon > maxLon wraps. */
export const BboxParam = z.string().transform((text, ctx) => {
  const parts = text.split(",");
  const values = parts.map(Number);
  const fail = (message: string) => {
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  };
  if (parts.length !== 4 || !parts.every((p) => NUMBER.test(p.trim()))) {
    return fail("must be minLon,minLat,maxLon,maxLat (four decimal numbers)");
  }
  const [minLon, minLat, maxLon, maxLat] = values;
  const problem = boxProblem(minLon, minLat, maxLon, maxLat);
  if (problem === null) return { minLon, minLat, maxLon, maxLat } as BoundingBox;
  // Latitude first ("minLat,minLon,maxLat,maxLon") can only be told when it makes the box invalid.
  const swapped = boxProblem(minLat, minLon, maxLat, maxLon) === null;
  return fail(
    swapped
      ? `${problem}: the order is minLon,minLat,maxLon,maxLat (longitude first), did you swap them?`
      : problem,
  );
}).meta({
  type: "string",
  pattern: BBOX_PATTERN,
  description: "minLon,minLat,maxLon,maxLat (degrees): tasks whose coordinates lie in the box; " +
    "minLon > maxLon crosses the antimeridian; minLat must not be above maxLat. Only city- and " +
    "radius-type tasks take part.",
  example: "2.2,48.8,2.5,48.95",
});

/** What makes `minLon,minLat,maxLon,maxLat` no box, or null. */
function boxProblem(minLon: number, minLat: number, maxLon: number, maxLat: number) {
  if ([minLon, maxLon].some((v) => v < -180 || v > 180)) {
    return "longitudes must be from -180 to 180";
  }
  if ([minLat, maxLat].some((v) => v < -90 || v > 90)) return "latitudes must be from -90 to 90";
  if (minLat > maxLat) return "minLat must not be above maxLat";
  return null;
}

/** True when the point lies in the box (edges included). */
export function inBbox(box: BoundingBox, lon: number, lat: number): boolean {
  if (lat < box.minLat || lat > box.maxLat) return false;
  return box.minLon <= box.maxLon
    ? lon >= box.minLon && lon <= box.maxLon
    : lon >= box.minLon || lon <= box.maxLon;
}

/** The box as rectangles that do not wrap: two when it crosses the antimeridian. */
export function bboxParts(box: BoundingBox): GeoBox[] {
  const { minLat, maxLat } = box;
  if (box.minLon <= box.maxLon) return [{ ...box }];
  return [
    { minLon: box.minLon, maxLon: 180, minLat, maxLat },
    { minLon: -180, maxLon: box.maxLon, minLat, maxLat },
  ];
}
