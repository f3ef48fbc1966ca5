/**
 * The bounding-box driver of explore: the geo cells of each layer that meet the box (both sides
 * of the antimeridian), read newest first; every candidate is then checked on its facet, so the
 * cells only have to hold every task in the box, never only those.
 */
import { bboxParts, type BoundingBox } from "../domain/bbox.ts";
import { geohashBounds, geohashEncode } from "../domain/geohash.ts";
import type { GeoBox } from "../domain/geo.ts";
import { COUNT_PRECISION, GEO_LAYERS } from "./explore_index.ts";
import type { CounterReader, Driver, PlanQuery } from "./explore_plan.ts";
import { FIRST_BATCH, MAX_FIRST_BATCH, PrefixStream } from "./explore_stream.ts";
import { explore } from "./keys.ts";

/** Past this many counter cells per layer the box is no narrower than a whole scan: no driver. */
export const MAX_BOX_CELLS = 64;
/** Most finer cells one counter cell may be split into. */
const MAX_FINE_CELLS = 32;
/** A counter cell holding more tasks than this is read through finer cells where it can be. */
const SPLIT_ABOVE = 64;

/** The overlap of two rectangles that do not wrap, or null. */
function intersect(a: GeoBox, b: GeoBox): GeoBox | null {
  const box = {
    minLon: Math.max(a.minLon, b.minLon),
    maxLon: Math.min(a.maxLon, b.maxLon),
    minLat: Math.max(a.minLat, b.minLat),
    maxLat: Math.min(a.maxLat, b.maxLat),
  };
  return box.minLon <= box.maxLon && box.minLat <= box.maxLat ? box : null;
}

/** The cells of one precision that meet a rectangle, or null past `max` of them. */
export function cellsInBox(box: GeoBox, precision: number, max: number): string[] | null {
  const lonBits = Math.ceil((5 * precision) / 2);
  const latBits = Math.floor((5 * precision) / 2);
  const width = 360 / 2 ** lonBits;
  const height = 180 / 2 ** latBits;
  const col = (lon: number) => Math.min(2 ** lonBits - 1, Math.floor((lon + 180) / width));
  const row = (lat: number) => Math.min(2 ** latBits - 1, Math.floor((lat + 90) / height));
  const [c0, c1, r0, r1] = [col(box.minLon), col(box.maxLon), row(box.minLat), row(box.maxLat)];
  if ((c1 - c0 + 1) * (r1 - r0 + 1) > max) return null;
  const cells: string[] = [];
  for (let c = c0; c <= c1; c++) {
    for (let r = r0; r <= r1; r++) {
      cells.push(geohashEncode(-180 + (c + 0.5) * width, -90 + (r + 0.5) * height, precision));
    }
  }
  return cells;
}

function area(box: GeoBox): number {
  return (box.maxLon - box.minLon) * (box.maxLat - box.minLat);
}

/**
 * The box's driver: per layer, the counter cells that meet it (empty ones skipped), each read
 * whole when sparse, else through its finest cells inside the box if they are few. The estimate
 * assumes tasks spread evenly within each counter cell. Null when the box spans too many cells.
 */
export async function bboxDriver(
  kv: Deno.Kv,
  counts: CounterReader,
  query: PlanQuery & { bbox: BoundingBox },
): Promise<Driver | null> {
  const { bbox, after, limit, work } = query;
  const parts = bboxParts(bbox);
  const coarse = new Set<string>();
  for (const part of parts) {
    const cells = cellsInBox(part, COUNT_PRECISION, MAX_BOX_CELLS);
    if (!cells) return null;
    for (const cell of cells) coarse.add(cell);
  }
  if (coarse.size > MAX_BOX_CELLS) return null;
  const parents = [...coarse];
  const n = await counts(
    GEO_LAYERS.flatMap((layer) => parents.map((cell) => explore.count("cell", layer.name, cell))),
  );
  const plans: { layer: string; cell: string; size: number }[] = [];
  let estimate = 0;
  let upper = 0;
  let at = 0;
  for (const layer of GEO_LAYERS) {
    for (const parent of parents) {
      const count = n[at++];
      if (count === 0) continue;
      upper += count;
      const bounds = geohashBounds(parent);
      const inside = parts.map((p) => intersect(p, bounds)).filter((b): b is GeoBox => !!b);
      const share = Math.min(1, inside.reduce((s, b) => s + area(b), 0) / area(bounds));
      estimate += count * share;
      let chosen: string[] = [parent];
      if (count > SPLIT_ABOVE) {
        for (const precision of layer.precisions.filter((p) => p > COUNT_PRECISION)) {
          const finer = inside.flatMap((b) => cellsInBox(b, precision, MAX_FINE_CELLS) ?? [""]);
          if (finer.includes("") || finer.length > MAX_FINE_CELLS) break;
          chosen = [...new Set(finer)];
        }
      }
      const size = count / chosen.length;
      for (const cell of chosen) plans.push({ layer: layer.name, cell, size });
    }
  }
  const pageShare = Math.min(1, (limit + 1) / Math.max(estimate, 1));
  return {
    name: "bbox",
    estimate,
    upper,
    wordsFromDocs: true,
    streams: () =>
      plans.map((p) => {
        const batch = Math.min(
          MAX_FIRST_BATCH,
          Math.max(FIRST_BATCH, Math.ceil(pageShare * p.size) + 1),
        );
        const prefix = explore.byCellPrefix(p.layer, p.cell);
        return new PrefixStream(kv, { prefix, before: after, work, batch });
      }),
  };
}
