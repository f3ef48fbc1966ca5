/**
 * Great-circle geometry on one sphere: points, circles, boxes, distances and areas. Pure math, no
 * storage; geohash cells are in geohash.ts and circle covers in geohash_cover.ts.
 */

/** Mean Earth radius (IUGG), the one sphere every distance here is measured on. */
export const EARTH_RADIUS_KM = 6371.0088;

/** A point on the sphere, in degrees. */
export interface Point {
  lon: number;
  lat: number;
}

/** A circle on the sphere: every point within `radiusKm` (great-circle) of the centre. */
export interface Circle extends Point {
  radiusKm: number;
}

/** A closed latitude/longitude rectangle in degrees; never wraps the antimeridian. */
export interface GeoBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

const RAD = Math.PI / 180;
const HALF_PI = Math.PI / 2;

// Float error in the bounding box and in the caller's own coordinates is far below a millimetre;
// widening by that much keeps points exactly on the circle inside the cover at negligible cost.
export const RADIUS_SLACK_KM = 1e-6;

/** Great-circle distance in kilometres between two points. */
export function haversineKm(a: Point, b: Point): number {
  return centralAngle(a.lat * RAD, b.lat * RAD, (b.lon - a.lon) * RAD) * EARTH_RADIUS_KM;
}

// The haversine form stays accurate for tiny angles, where the spherical law of cosines does not.
function centralAngle(phi1: number, phi2: number, dLambda: number): number {
  const sinLat = Math.sin((phi2 - phi1) / 2);
  const sinLon = Math.sin(dLambda / 2);
  const h = sinLat * sinLat + cosLat(phi1) * cosLat(phi2) * sinLon * sinLon;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

// A pole is one point whatever its longitude: Math.cos(π/2) is 6e-17, not 0, which left the
// longitude in a pole's distances (ties broken by float noise, not newest first).
function cosLat(phi: number): number {
  return phi >= HALF_PI || phi <= -HALF_PI ? 0 : Math.cos(phi);
}

/** A longitude brought into [-180, 180]. */
export function wrapLon(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  return (((lon + 180) % 360) + 360) % 360 - 180;
}

/** Throws a RangeError for coordinates off the sphere. */
export function checkPoint(lon: number, lat: number): void {
  if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) {
    throw new RangeError(`invalid coordinates (${lon}, ${lat})`);
  }
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

/** A point prepared for `roughDistanceToBoxKm`: longitude wrapped, latitude's cosine taken once. */
export interface RoughFrom {
  lon: number;
  lat: number;
  cosLat: number;
}

export function roughFrom({ lon, lat }: Point): RoughFrom {
  return { lon: wrapLon(lon), lat, cosLat: Math.cos(lat * RAD) };
}

// Below every rounding of the exact bound (whose own slack is RADIUS_SLACK_KM).
const ROUGH_SLACK_KM = 2 * RADIUS_SLACK_KM;

/**
 * A lower bound of `minDistanceToBoxKm` with no trigonometry, close to it for boxes a few degrees
 * wide: hav(d) = hav(Δφ) + cos φ₁ cos φ₂ hav(Δλ) is at least its value at the box's least latitude
 * and longitude differences and least cos φ₂, taken with sin x ≥ x − x³/6, cos x ≥ 1 − x²/2 + x⁴/24 − x⁶/720 and
 * asin y ≥ y. A walk over many cells orders them by it and computes the exact bound only for those
 * it reaches.
 */
export function roughDistanceToBoxKm(from: RoughFrom, box: GeoBox): number {
  const x = from.lon;
  let dLon = 0;
  if (x < box.minLon || x > box.maxLon) {
    const east = (((box.minLon - x) % 360) + 360) % 360;
    const west = (((x - box.maxLon) % 360) + 360) % 360;
    dLon = Math.min(east, west);
  }
  const lat = from.lat;
  const dLat = lat < box.minLat ? box.minLat - lat : lat > box.maxLat ? lat - box.maxLat : 0;
  const a = dLat * RAD / 2;
  const sinA = a * (1 - a * a / 6);
  let h = sinA * sinA;
  if (dLon > 0) {
    const b = dLon * RAD / 2;
    const sinB = b * (1 - b * b / 6);
    const far = Math.max(Math.abs(box.minLat), Math.abs(box.maxLat)) * RAD;
    const f2 = far * far;
    const cosFar = Math.max(0, 1 - f2 / 2 * (1 - f2 / 12 * (1 - f2 / 30)));
    h += from.cosLat * cosFar * sinB * sinB;
  }
  return Math.max(0, 2 * Math.sqrt(h) * EARTH_RADIUS_KM - ROUGH_SLACK_KM);
}

/** Area of the spherical cap within `radiusKm` of a point, in km² (the whole sphere at most). */
export function capAreaKm2(radiusKm: number): number {
  const angle = Math.min(Math.PI, radiusKm / EARTH_RADIUS_KM);
  return 2 * Math.PI * EARTH_RADIUS_KM ** 2 * (1 - Math.cos(angle));
}
