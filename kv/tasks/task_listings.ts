/**
 * A user's own listings of tasks: newest-first pages, filtered by payment and search words, and
 * pages by status, read from the owner's index entries.
 */
import type { TaskStatus } from "../../domain/tasks/task.ts";
import type { TaskListItem } from "../../domain/tasks/task_view.ts";
import { matchesPayment } from "../../domain/tasks/task.ts";
import { isUnfiltered, type TaskFilter } from "../../domain/tasks/task_filter.ts";
import { tasks } from "../keyspace.ts";
import type { TaskSearchEntry } from "./task_indexes.ts";
import { PACKED_ITEM_LENGTH, type PackedItem, unpackItem } from "./packed_item.ts";
import { packedHasWords, type PackedWords } from "./packed_words.ts";

/** One of a user's own listings: whose tasks, and which of them. */
export interface UserTasks {
  userId: string;
  filter: TaskFilter;
}

/** A page of a newest-first listing, with the order key to resume after when more follow. */
export interface TaskPage {
  items: TaskListItem[];
  nextAfter: string | null;
}

/** How to read a user's listing: below `after`, at most `limit` entries, `batchSize` at a time. */
interface UserTaskRead extends UserTasks {
  after?: string | null;
  limit?: number;
  batchSize: number;
}

/**
 * The matching tasks of a user's listing, newest first, read in batches as the consumer pulls:
 * the payment index when only a payment class is asked for, else every task of the user, whose
 * entries hold the search words beside each list item (the payment index holds items only).
 */
async function* userTaskEntries(
  kv: Deno.Kv,
  read: UserTaskRead,
): AsyncGenerator<{ orderKey: string; item: TaskListItem }> {
  const { userId, filter } = read;
  const searching = filter.search.length > 0;
  const prefix = filter.payment && !searching
    ? tasks.byUserPaymentPrefix(userId, filter.payment)
    : tasks.byUserPrefix(userId);
  const selector = read.after ? { prefix, end: [...prefix, read.after] } : { prefix };
  const entries = kv.list<TaskSearchEntry | PackedItem>(selector, {
    reverse: true,
    limit: read.limit,
    batchSize: read.batchSize,
  });
  for await (const entry of entries) {
    const item = unpackItem(entry.value);
    if (entry.value.length === PACKED_ITEM_LENGTH) {
      yield { orderKey: entry.key.at(-1) as string, item };
      continue;
    }
    const words = entry.value[PACKED_ITEM_LENGTH] as PackedWords;
    if (filter.payment && !matchesPayment(item.budget, filter.payment)) continue;
    if (!packedHasWords(words, filter.search)) continue;
    yield { orderKey: entry.key.at(-1) as string, item };
  }
}

/**
 * One page of a user's live tasks, newest first, strictly after `after`. Without search it costs
 * one read of limit + 1 entries; with search it reads on until limit + 1 matches or the end.
 */
export async function listUserTasks(
  kv: Deno.Kv,
  query: UserTasks & { limit: number; after: string | null },
): Promise<TaskPage> {
  const searching = query.filter.search.length > 0;
  const entries = userTaskEntries(kv, {
    userId: query.userId,
    filter: query.filter,
    after: query.after,
    limit: searching ? undefined : query.limit + 1,
    batchSize: searching ? 200 : query.limit + 1,
  });
  const items: TaskListItem[] = [];
  let last: string | null = null;
  for await (const { orderKey, item } of entries) {
    if (items.length === query.limit) return { items, nextAfter: last };
    items.push(item);
    last = orderKey;
  }
  return { items, nextAfter: null };
}

/** How many live tasks a user has in a status, from the counter kept with every write. */
export async function countUserTasks(
  kv: Deno.Kv,
  userId: string,
  status: TaskStatus,
): Promise<number> {
  const entry = await kv.get<Deno.KvU64>(tasks.countByUserStatus(userId, status));
  return Number(entry.value?.value ?? 0n);
}

/** One page of a page-paged listing, and how many items the whole listing holds. */
export interface CountedPage {
  items: TaskListItem[];
  total: number;
}

/** Page `page` (from 1) of `limit` items of a user's tasks in one status. */
export interface StatusPageQuery extends UserTasks {
  status: TaskStatus;
  page: number;
  limit: number;
}

/**
 * A page of a user's live tasks in a status, newest first, with the total. Without filters the
 * total is a counter and the page one read of `page * limit` entries. With filters there is no
 * counter: the user's tasks (of one payment class when given) are read to the end to count the
 * matches, so the cost is the size of the user's own listing, never the store's.
 */
export async function pageUserTasksByStatus(
  kv: Deno.Kv,
  query: StatusPageQuery,
): Promise<CountedPage> {
  const { userId, status, page, limit } = query;
  const skip = (page - 1) * limit;
  if (isUnfiltered(query.filter)) {
    const entries = kv.list<PackedItem>({ prefix: tasks.byUserStatusPrefix(userId, status) }, {
      reverse: true,
      limit: skip + limit,
      batchSize: Math.min(skip + limit, 1000),
    });
    const read = async () => {
      const items: TaskListItem[] = [];
      let seen = 0;
      for await (const entry of entries) {
        if (seen++ >= skip) items.push(unpackItem(entry.value));
      }
      return items;
    };
    // The counter and the page together: one round trip on Deploy rather than two.
    const [total, items] = await Promise.all([countUserTasks(kv, userId, status), read()]);
    return { items: skip >= total ? [] : items, total };
  }
  const items: TaskListItem[] = [];
  let total = 0;
  for await (const item of filteredUserTasks(kv, query, 200)) {
    if (item.status !== status) continue;
    if (total >= skip && items.length < limit) items.push(item);
    total++;
  }
  return { items, total };
}

/** A user's live tasks that pass the listing's filter, newest first, read as the consumer pulls. */
export async function* filteredUserTasks(
  kv: Deno.Kv,
  listing: UserTasks,
  batchSize = 100,
): AsyncGenerator<TaskListItem> {
  // Named, not spread: a caller's own `limit` (a page size) is no limit on this read.
  const read = { userId: listing.userId, filter: listing.filter, batchSize };
  for await (const { item } of userTaskEntries(kv, read)) yield item;
}
