/**
 * The `search` and `payment` filters of every task listing (docs/contract.md section 7), normalized once from
 * the query: the caller's own listings and explore read them in this one shape.
 */
import { Payment, SearchText } from "./task.ts";
import { queryWords } from "../validation/text.ts";

/** The two query members, for every task listing's query schema. */
export const taskFilterFields = { search: SearchText.optional(), payment: Payment.optional() };

/** `search` and `payment`, normalized; both absent: every task. */
export interface TaskFilter {
  /** Query words (`queryWords`); each must start a word of the title or description. */
  search: string[];
  payment?: Payment;
}

/** Normalizes a listing query's `search` and `payment`. */
export function taskFilter(query: { search?: string; payment?: Payment }): TaskFilter {
  const filter: TaskFilter = { search: queryWords(query.search ?? "") };
  if (query.payment !== undefined) filter.payment = query.payment;
  return filter;
}

/** True when the filter lets every task through. */
export function isUnfiltered(filter: TaskFilter): boolean {
  return filter.search.length === 0 && filter.payment === undefined;
}

/** What a cursor of a filtered listing is bound to, for these two members. */
export function taskFilterScope(filter: TaskFilter): { search: string; payment?: Payment } {
  return { search: filter.search.join(" "), payment: filter.payment };
}
