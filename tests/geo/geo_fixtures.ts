/** Shared by the geo tests: points at a distance and bearing, and checks on cell covers. */
import assert from "node:assert/strict";
import { geohashEncode } from "../../domain/geo/geohash.ts";
import { EARTH_RADIUS_KM, type Point } from "../../domain/geo/geo.ts";

export const RAD = Math.PI / 180;

export function normalizeLon(lon: number): number {
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}

/** The point reached from a start by travelling `distanceKm` along `bearingDeg`. */
export function destination(
  { lon, lat }: Point,
  bearingDeg: number,
  distanceKm: number,
): [number, number] {
  const delta = distanceKm / EARTH_RADIUS_KM;
  const theta = bearingDeg * RAD;
  const phi1 = lat * RAD;
  const sinPhi2 = Math.sin(phi1) * Math.cos(delta) +
    Math.cos(phi1) * Math.sin(delta) * Math.cos(theta);
  const phi2 = Math.asin(Math.max(-1, Math.min(1, sinPhi2)));
  const lambda2 = lon * RAD +
    Math.atan2(
      Math.sin(theta) * Math.sin(delta) * Math.cos(phi1),
      Math.cos(delta) - Math.sin(phi1) * Math.sin(phi2),
    );
  return [normalizeLon(lambda2 / RAD), phi2 / RAD];
}

export function assertCovers(
  { cells, precision }: { cells: readonly string[]; precision: number },
  [lon, lat]: readonly [number, number],
  context: string,
): void {
  const hash = geohashEncode(lon, lat, precision);
  assert.ok(cells.includes(hash), `${context}: point (${lon}, ${lat}) in ${hash} not covered`);
}

export function assertSortedUnique(cells: readonly string[]): void {
  for (let i = 1; i < cells.length; i++) assert.ok(cells[i - 1] < cells[i], "sorted, distinct");
}
