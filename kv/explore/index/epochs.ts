/**
 * Word epochs: a word's entries split by when the task was created, so that a search reads its
 * newest tasks without listing every zone of the word (docs/explore.md, "Word epochs").
 */
import { base32Digits, base32Value, orderKeyFloor, orderKeyTime } from "../../order_key.ts";

/** An epoch's span: about a quarter, so that a rare word's page fills within one or two. */
export const EPOCH_DAYS = 91;
const EPOCH_MS = EPOCH_DAYS * 24 * 3600 * 1000;
/** Digits of an epoch in keys: base 32, so three reach some eight thousand years. */
const EPOCH_DIGITS = 3;

/**
 * The epoch of an order key (its creation time's), as a key part that sorts by time: fixed at
 * creation, so that an edit never moves a task's word entries.
 */
export function epochOf(orderKey: string): string {
  return base32Digits(Math.floor(orderKeyTime(orderKey) / EPOCH_MS), EPOCH_DIGITS);
}

/** A key that every order key of `epoch` sorts below, and every later one not. */
export function epochCeiling(epoch: string): string {
  return orderKeyFloor((base32Value(epoch) + 1) * EPOCH_MS);
}

/**
 * The share of `epoch`'s span that lies before `orderKey`'s time (0 to 1): a page resuming in an
 * epoch takes the entries of it below the cursor to be spread evenly over its time.
 */
export function epochShareBefore(epoch: string, orderKey: string): number {
  const start = base32Value(epoch) * EPOCH_MS;
  return Math.min(1, Math.max(0, (orderKeyTime(orderKey) - start) / EPOCH_MS));
}
