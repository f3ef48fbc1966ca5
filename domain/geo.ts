/**
 * Great-circle distances and geohash cells for the explore index: which index cells can hold a
 * point lying within some radius of a centre. Pure spherical math, no storage.
 */

/** Mean Earth radius (IUGG), the one sphere every distance here is measured on. */
export const EARTH_RADIUS_KM = 6371.0088;

/** Longest geohash accepted; 60 bits still fit exactly in two 30-bit integers. */
export const MAX_GEOHASH_PRECISION = 12;

/** Precisions at which the explore index stores cells, unless a caller says otherwise. */
export const DEFAULT_PRECISIONS: readonly number[] = Object.freeze([2, 3, 4]);

/** A closed latitude/longitude rectangle in degrees; never wraps the antimeridian. */
export interface GeoBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** The cells of one precision that together hold every point of a circle. */
export interface CircleCover {
  precision: number;
  cells: string[];
}

/** Tuning of `coverCircle` beyond the circle itself. */
/** A circle on the sphere: every point within `radiusKm` (great-circle) of the centre. */
export interface Circle extends Point {
  radiusKm: number;
}

export interface CoverOptions {
  /** Most cells a finer precision may take before a coarser one is tried (default 12). */
  maxCells?: number;
  /** Precisions the index holds; the finest that stays within `maxCells` wins. */
  precisions?: readonly number[];
  /** Added to the radius, so that tasks whose own circle reaches the search circle match too. */
  extraKm?: number;
}

const BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz";
const BASE32_INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE32.length; i++) BASE32_INDEX[BASE32.charCodeAt(i)] = i;

const RAD = Math.PI / 180;
const HALF_PI = Math.PI / 2;

// Float error in the bounding box and in the caller's own coordinates is far below a millimetre;
// widening by that much keeps points exactly on the circle inside the cover at negligible cost.
const RADIUS_SLACK_KM = 1e-6;
const RADIUS_SLACK_FACTOR = 1 + 1e-9;
const DEGREE_SLACK = 1e-9;

// A box count somewhat over `maxCells` may still fit once cells beyond the circle (the box's
// corners) are pruned. Sampling random circles, pruning rescued ~13% of counts within 1.5× and
// almost none above, so enumerating further would mostly be wasted work.
const PRUNE_HEADROOM = 1.5;

/** A point on the sphere, in degrees. */
export interface Point {
  lon: number;
  lat: number;
}

/** Great-circle distance in kilometres between two points. */
export function haversineKm(a: Point, b: Point): number {
  return centralAngle(a.lat * RAD, b.lat * RAD, (b.lon - a.lon) * RAD) * EARTH_RADIUS_KM;
}

// The haversine form stays accurate for tiny angles, where the spherical law of cosines does not.
function centralAngle(phi1: number, phi2: number, dLambda: number): number {
  const sinLat = Math.sin((phi2 - phi1) / 2);
  const sinLon = Math.sin(dLambda / 2);
  const h = sinLat * sinLat + Math.cos(phi1) * Math.cos(phi2) * sinLon * sinLon;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

function wrapLon(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  return (((lon + 180) % 360) + 360) % 360 - 180;
}

function checkPoint(lon: number, lat: number): void {
  if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) {
    throw new RangeError(`invalid coordinates (${lon}, ${lat})`);
  }
}

function checkPrecision(precision: number): void {
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
  let minLon = -180, maxLon = 180, minLat = -90, maxLat = 90;
  let even = true;
  for (let i = 0; i < hash.length; i++) {
    const code = hash.charCodeAt(i);
    const index = code < 128 ? BASE32_INDEX[code] : -1;
    if (index < 0) throw new RangeError(`invalid geohash character in "${hash}"`);
    for (let bit = 4; bit >= 0; bit--) {
      const on = (index >> bit) & 1;
      if (even) {
        const mid = (minLon + maxLon) / 2;
        if (on) minLon = mid;
        else maxLon = mid;
      } else {
        const mid = (minLat + maxLat) / 2;
        if (on) minLat = mid;
        else maxLat = mid;
      }
      even = !even;
    }
  }
  return { minLon, minLat, maxLon, maxLat };
}

/**
 * Lower bound (exact up to a millimetre) of the great-circle distance in km from a point to any
 * point of a box.
 */
export function minDistanceToBoxKm(lon: number, lat: number, box: GeoBox): number {
  const x = wrapLon(lon);
  let dLon = 0;
  if (x < box.minLon || x > box.maxLon) {
    const east = (((box.minLon - x) % 360) + 360) % 360;
    const west = (((x - box.maxLon) % 360) + 360) % 360;
    dLon = Math.min(east, west);
  }
  if (dLon === 0) {
    // Same meridian as some box point: the nearest one is straight north or south.
    const dLat = lat < box.minLat ? box.minLat - lat : lat > box.maxLat ? lat - box.maxLat : 0;
    return Math.max(0, dLat * RAD * EARTH_RADIUS_KM - RADIUS_SLACK_KM);
  }
  // Distance grows with |Δλ| at any fixed latitude, so the nearest box point lies on the edge
  // meridian nearest in longitude. Along that meridian cos(distance) = A·sin φ' + B·cos φ', a
  // sinusoid in φ' whose peak is atan2(A, B): the minimum is there if reachable, else at an end.
  const phi = lat * RAD;
  const lambda = dLon * RAD;
  const lo = box.minLat * RAD;
  const hi = box.maxLat * RAD;
  let best = Math.min(centralAngle(phi, lo, lambda), centralAngle(phi, hi, lambda));
  const peak = Math.atan2(Math.sin(phi), Math.cos(phi) * Math.cos(lambda));
  if (peak >= -HALF_PI && peak <= HALF_PI) {
    const clamped = peak < lo ? lo : peak > hi ? hi : peak;
    best = Math.min(best, centralAngle(phi, clamped, lambda));
  }
  return Math.max(0, best * EARTH_RADIUS_KM - RADIUS_SLACK_KM);
}

// Longitude ranges in [-180, 180] plus one latitude range: the circle's bounding region.
interface Region {
  lons: [number, number][];
  minLat: number;
  maxLat: number;
}

function circleRegion(lon: number, lat: number, radiusKm: number): Region {
  const angle = radiusKm / EARTH_RADIUS_KM;
  const dLat = angle / RAD + DEGREE_SLACK;
  const minLat = lat - dLat;
  const maxLat = lat + dLat;
  if (angle >= Math.PI || minLat <= -90 || maxLat >= 90) {
    // A circle holding a pole spans every meridian.
    return { lons: [[-180, 180]], minLat: Math.max(-90, minLat), maxLat: Math.min(90, maxLat) };
  }
  // Widest longitude reach of a spherical cap (touched away from the centre's latitude).
  const ratio = Math.sin(angle) / Math.cos(lat * RAD);
  if (ratio >= 1) return { lons: [[-180, 180]], minLat, maxLat };
  const dLon = Math.asin(ratio) / RAD + DEGREE_SLACK;
  if (dLon >= 180) return { lons: [[-180, 180]], minLat, maxLat };
  const west = lon - dLon;
  const east = lon + dLon;
  if (west < -180) return { lons: [[-180, east], [west + 360, 180]], minLat, maxLat };
  if (east > 180) return { lons: [[-180, east - 360], [west, 180]], minLat, maxLat };
  return { lons: [[west, east]], minLat, maxLat };
}

function columnRange(min: number, max: number, bits: number): [number, number] {
  const n = 2 ** bits;
  const first = Math.max(0, Math.min(n - 1, Math.floor(((min + 180) / 360) * n)));
  const last = Math.max(0, Math.min(n - 1, Math.floor(((max + 180) / 360) * n)));
  return [first, last];
}

function rowRange(min: number, max: number, bits: number): [number, number] {
  const n = 2 ** bits;
  const first = Math.max(0, Math.min(n - 1, Math.floor(((min + 90) / 180) * n)));
  const last = Math.max(0, Math.min(n - 1, Math.floor(((max + 90) / 180) * n)));
  return [first, last];
}

// Interleaves column and row numbers into a hash, longitude bit first as geohash does.
function cellHash(column: number, row: number, grid: Pick<Grid, "precision" | "lonBits">): string {
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

interface Grid {
  precision: number;
  lonBits: number;
  latBits: number;
  columns: [number, number][];
  rows: [number, number];
  count: number;
}

function gridOf(region: Region, precision: number): Grid {
  const lonBits = Math.ceil((precision * 5) / 2);
  const latBits = precision * 5 - lonBits;
  const columns = region.lons.map(([min, max]) => columnRange(min, max, lonBits));
  // Both halves of an antimeridian split may reach the same column; count it once.
  if (columns.length === 2 && columns[0][1] >= columns[1][0]) {
    columns.splice(0, 2, [columns[0][0], Math.max(columns[0][1], columns[1][1])]);
  }
  const rows = rowRange(region.minLat, region.maxLat, latBits);
  let width = 0;
  for (const [first, last] of columns) width += last - first + 1;
  return { precision, lonBits, latBits, columns, rows, count: width * (rows[1] - rows[0] + 1) };
}

function cellsOf(grid: Grid, circle: Circle): string[] {
  const { lon, lat, radiusKm } = circle;
  const lonStep = 360 / 2 ** grid.lonBits;
  const latStep = 180 / 2 ** grid.latBits;
  const cells: string[] = [];
  const box: GeoBox = { minLon: 0, minLat: 0, maxLon: 0, maxLat: 0 };
  for (let row = grid.rows[0]; row <= grid.rows[1]; row++) {
    box.minLat = -90 + row * latStep;
    box.maxLat = box.minLat + latStep;
    for (const [first, last] of grid.columns) {
      for (let column = first; column <= last; column++) {
        box.minLon = -180 + column * lonStep;
        box.maxLon = box.minLon + lonStep;
        if (minDistanceToBoxKm(lon, lat, box) > radiusKm) continue;
        cells.push(cellHash(column, row, grid));
      }
    }
  }
  // Rows ascend and columns ascend within a row; geohash order interleaves them, so sort.
  return cells.sort();
}

/**
 * Geohash cells of the finest usable precision that together hold every point within
 * `radiusKm` (+ `extraKm`) of a centre, at most `maxCells` of them; falls back to the coarsest precision however many it takes.
 */
export function coverCircle(circle: Circle, options: CoverOptions = {}): CircleCover {
  const { lon, lat, radiusKm } = circle;
  const maxCells = options.maxCells ?? 12;
  checkPoint(lon, lat);
  const extraKm = options.extraKm ?? 0;
  if (!(radiusKm >= 0) || !(extraKm >= 0) || !Number.isFinite(radiusKm + extraKm)) {
    throw new RangeError("radius and extra distance must be finite and non-negative");
  }
  if (!Number.isInteger(maxCells) || maxCells < 1) {
    throw new RangeError("maxCells must be a positive integer");
  }
  const precisions = [...new Set(options.precisions ?? DEFAULT_PRECISIONS)];
  if (precisions.length === 0) throw new RangeError("at least one precision is required");
  precisions.forEach(checkPrecision);
  precisions.sort((a, b) => b - a);

  const x = wrapLon(lon);
  const reach = (radiusKm + extraKm) * RADIUS_SLACK_FACTOR + RADIUS_SLACK_KM;
  const region = circleRegion(x, lat, reach);
  const coarsest = precisions[precisions.length - 1];
  for (const precision of precisions) {
    const grid = gridOf(region, precision);
    const last = precision === coarsest;
    if (!last && grid.count > maxCells * PRUNE_HEADROOM) continue;
    const cells = cellsOf(grid, { lon: x, lat, radiusKm: reach });
    if (last || cells.length <= maxCells) return { precision, cells };
  }
  // Unreachable: the loop always returns at the coarsest precision.
  throw new Error("coverCircle: no precision chosen");
}

/** Area of a geohash cell on the sphere (between its latitudes and longitudes), in km². */
export function cellAreaKm2(hash: string): number {
  const b = geohashBounds(hash);
  const rad = Math.PI / 180;
  return EARTH_RADIUS_KM ** 2 * (b.maxLon - b.minLon) * rad *
    Math.abs(Math.sin(b.maxLat * rad) - Math.sin(b.minLat * rad));
}

/** Area of the spherical cap within `radiusKm` of a point, in km² (the whole sphere at most). */
export function capAreaKm2(radiusKm: number): number {
  const angle = Math.min(Math.PI, radiusKm / EARTH_RADIUS_KM);
  return 2 * Math.PI * EARTH_RADIUS_KM ** 2 * (1 - Math.cos(angle));
}
