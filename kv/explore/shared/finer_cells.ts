/**
 * What a finer cell of a counter cell is expected to hold, for a centre layer and a disc layer
 * alike: the circle planner's covers and the nearest walk's disc cells size their reads by it.
 */
import { cellAreaKm2 } from "../../../domain/geo/geohash.ts";
import type { CellLayer } from "../index/entries.ts";

/**
 * The tasks a finer cell of a counter cell is expected to hold, of the `count` its counter cell
 * holds: its share of the area, and for a disc layer the ratio of the two cells' `spill`s.
 */
export function finerCount(
  layer: CellLayer,
  { parent, count, cell }: { parent: string; count: number; cell: string },
): number {
  return count / 32 ** (cell.length - parent.length) * spill(layer, cell) / spill(layer, parent);
}

/**
 * How many times its tasks' centres a disc layer's cell holds: the tasks whose disc (taken at
 * half the class's largest radius) reaches into it, from around it too; 1 for a centre layer.
 */
export function spill(layer: CellLayer, cell: string): number {
  if (!layer.disc) return 1;
  const side = Math.sqrt(cellAreaKm2(cell));
  return ((side + layer.of.maxRadiusKm) / side) ** 2;
}
