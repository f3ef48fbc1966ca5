/**
 * The geographic constants both planners read: how finely a counter cell may be split, which city
 * cells are probed around a point, and the margins the densities they give are used with.
 */

/** Most finer cells one counter cell may be split into, or a finer cover may take (CPU bound). */
export const MAX_FINE_CELLS = 32;

/**
 * Precisions of the city layer's cells a nearest-first page reads around its point with the
 * counters (cells of about 39, 4.9 and 1.2 km): the coarsest one read whole gives the local
 * density, which the coarse counters cannot (a city is hundreds of times denser than its
 * precision-2 cell).
 */
export const PROBE_PRECISIONS = [4, 5, 6];

/**
 * The probes a small circle or box reads around its centre (cells of about 4.9 and 1.2 km), each
 * up to `AREA_PROBE_LIMIT` entries: the local density sizes its first lists, which an even spread
 * over precision-2 cells sets far too shallow in a city.
 */
export const AREA_PROBE_PRECISIONS = [5, 6];
export const AREA_PROBE_LIMIT = 32;

/** First lists read this many times what the centre's density says (it falls off within a city). */
export const DENSITY_SAFETY = 2;

/**
 * How much deeper than the even-spread estimate a cover is planned for: the value of those tried
 * that read the fewest entries and lists (docs/explore.md).
 */
export const SHARE_SAFETY = 3;

/**
 * A page expected to reach past this many km from its point at the density around it is in a
 * sparse area: its density comes from the handful of tasks a probe holds.
 */
export const SPARSE_REACH_KM = 20;
