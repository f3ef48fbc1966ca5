/**
 * Which geohash cells can hold a point lying within some radius of a centre: the cover the explore
 * index reads for a distance filter, at the finest precision that stays within a cell budget.
 */
import { cellHash, checkPrecision } from "./geohash.ts";
import {
  checkPoint,
  type Circle,
  EARTH_RADIUS_KM,
  type GeoBox,
  minDistanceToBoxKm,
  RADIUS_SLACK_KM,
  wrapLon,
} from "./geo.ts";

/** Precisions at which the explore index stores cells, unless a caller says otherwise. */
export const DEFAULT_PRECISIONS: readonly number[] = Object.freeze([2, 3, 4]);

/** The cells of one precision that together hold every point of a circle. */
export interface CircleCover {
  precision: number;
  cells: string[];
}

/** Tuning of `coverCircle` beyond the circle itself. */
export interface CoverOptions {
  /** Most cells a finer precision may take before a coarser one is tried (default 12). */
  maxCells?: number;
  /** Precisions the index holds; the finest that stays within `maxCells` wins. */
  precisions?: readonly number[];
  /** Added to the radius, so that tasks whose own circle reaches the search circle match too. */
  extraKm?: number;
}

const RAD = Math.PI / 180;

// Float error is far below a millimetre; widening by that much keeps points exactly on the
// circle inside the cover at negligible cost.
const RADIUS_SLACK_FACTOR = 1 + 1e-9;
const DEGREE_SLACK = 1e-9;

// A box count somewhat over `maxCells` may still fit once cells beyond the circle (the box's
// corners) are pruned. Sampling random circles, pruning rescued counts a little over the bound
// and almost none far above it, so enumerating further would mostly be wasted work.
const PRUNE_HEADROOM = 1.5;

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
