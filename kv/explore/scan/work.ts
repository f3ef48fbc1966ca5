/**
 * The storage work a page counts against its budget, and what each read costs in its units: the
 * one home of the figures the streams, the range reads, the scan and the planner's prices share.
 */

/** Counts the storage work of one query, so that a page can stop at a fixed budget. */
export class Work {
  units = 0;
  lists = 0;
  entries = 0;
  docs = 0;
  /** Word entries rejected on the position they carry, without their documents. */
  placed = 0;
}

// Relative costs of the local backend's operations, in units of one listed entry, so that a
// budget in units bounds a page's time (docs/explore.md, "Planner").
export const LIST_COST = 30;
export const ENTRY_COST = 1;
export const DOC_COST = 7;
