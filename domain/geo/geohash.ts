/**
 * Standard base32 geohash cells: a point's cell, a cell's rectangle and area, and the hash of a
 * cell given by its column and row in the grid of one precision.
 */
import { checkPoint, EARTH_RADIUS_KM, type GeoBox, wrapLon } from "./geo.ts";

/** Longest geohash accepted; 60 bits still fit exactly in two 30-bit integers. */
export const MAX_GEOHASH_PRECISION = 12;

/** The geohash alphabet: a cell's 32 children are its hash plus each of these. */
export const BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz";
const BASE32_INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE32.length; i++) BASE32_INDEX[BASE32.charCodeAt(i)] = i;

/** Throws a RangeError for a precision outside 1..MAX_GEOHASH_PRECISION. */
export function checkPrecision(precision: number): void {
  if (!Number.isInteger(precision) || precision < 1 || precision > MAX_GEOHASH_PRECISION) {
    throw new RangeError(`geohash precision must be an integer in 1..${MAX_GEOHASH_PRECISION}`);
  }
}

/** Standard base32 geohash of a point; longitudes outside ±180 are wrapped first. */
export function geohashEncode(lon: number, lat: number, precision: number): string {
  checkPoint(lon, lat);
  checkPrecision(precision);
  const x = wrapLon(lon);
  // Bisection rather than scaling: the halving bounds are exact dyadic values, so a point on a
  // cell edge lands in the same cell that `geohashBounds` reports as holding it (min ≤ v < max).
  let lonLo = -180, lonHi = 180, latLo = -90, latHi = 90;
  let even = true;
  let hash = "";
  for (let i = 0; i < precision; i++) {
    let index = 0;
    for (let b = 0; b < 5; b++) {
      if (even) {
        const mid = (lonLo + lonHi) / 2;
        if (x >= mid) {
          index = (index << 1) | 1;
          lonLo = mid;
        } else {
          index <<= 1;
          lonHi = mid;
        }
      } else {
        const mid = (latLo + latHi) / 2;
        if (lat >= mid) {
          index = (index << 1) | 1;
          latLo = mid;
        } else {
          index <<= 1;
          latHi = mid;
        }
      }
      even = !even;
    }
    hash += BASE32[index];
  }
  return hash;
}

/** The rectangle a geohash stands for; the empty hash is the whole world. */
export function geohashBounds(hash: string): GeoBox {
  if (hash.length > MAX_GEOHASH_PRECISION) {
    throw new RangeError(`geohash longer than ${MAX_GEOHASH_PRECISION} characters`);
  }
  const box = { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 };
  for (let i = 0; i < hash.length; i++) {
    const code = hash.charCodeAt(i);
    const index = code < 128 ? BASE32_INDEX[code] : -1;
    if (index < 0) throw new RangeError(`invalid geohash character in "${hash}"`);
    // A digit's five bits alternate, so an even digit starts with longitude.
    narrow(box, index, i % 2 === 0);
  }
  return box;
}

/**
 * Halves `box` in place by the five bits of one base-32 digit, longitude first when `lonFirst`:
 * the step from a cell to one of its 32 finer cells.
 */
function narrow(box: GeoBox, index: number, lonFirst: boolean): void {
  let even = lonFirst;
  for (let bit = 4; bit >= 0; bit--) {
    const on = (index >> bit) & 1;
    if (even) {
      const mid = (box.minLon + box.maxLon) / 2;
      if (on) box.minLon = mid;
      else box.maxLon = mid;
    } else {
      const mid = (box.minLat + box.maxLat) / 2;
      if (on) box.minLat = mid;
      else box.maxLat = mid;
    }
    even = !even;
  }
}

/**
 * The rectangles of a cell's 32 finer cells in `BASE32` order, from the cell's own rectangle (as
 * `geohashBounds` gives it): the same halvings `geohashBounds` makes for each, without reading the
 * hash again.
 */
export function childBounds(hash: string, box: GeoBox): GeoBox[] {
  const lonFirst = hash.length % 2 === 0;
  const boxes: GeoBox[] = [];
  for (let index = 0; index < 32; index++) {
    const child = { ...box };
    narrow(child, index, lonFirst);
    boxes.push(child);
  }
  return boxes;
}

/** Area of a geohash cell on the sphere (between its latitudes and longitudes), in km². */
export function cellAreaKm2(hash: string): number {
  const b = geohashBounds(hash);
  const rad = Math.PI / 180;
  return EARTH_RADIUS_KM ** 2 * (b.maxLon - b.minLon) * rad *
    Math.abs(Math.sin(b.maxLat * rad) - Math.sin(b.minLat * rad));
}

// Interleaves column and row numbers into a hash, longitude bit first as geohash does.
export function cellHash(
  column: number,
  row: number,
  grid: { precision: number; lonBits: number },
): string {
  const { precision, lonBits } = grid;
  let lonBit = lonBits - 1;
  let latBit = precision * 5 - lonBits - 1;
  let even = true;
  let hash = "";
  for (let i = 0; i < precision; i++) {
    let index = 0;
    for (let b = 0; b < 5; b++) {
      if (even) index = (index << 1) | ((column >>> lonBit--) & 1);
      else index = (index << 1) | ((row >>> latBit--) & 1);
      even = !even;
    }
    hash += BASE32[index];
  }
  return hash;
}
