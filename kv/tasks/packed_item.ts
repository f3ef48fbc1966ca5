/**
 * A task's list item as index entries store it: a tuple, since V8's serialization spells every
 * field name of an object in every value, and each task's item is stored in several indexes.
 */
import type { TaskListItem } from "../../domain/tasks/task_view.ts";

export type PackedItem = [
  id: string,
  title: string,
  budget: number,
  currency: string,
  status: TaskListItem["status"],
  createdAt: string,
  acceptedCount: number,
  spotsLeft: number,
];

/** Fields of a packed item: what follows them in a longer tuple is the caller's. */
export const PACKED_ITEM_LENGTH = 8;

export function packItem(item: TaskListItem): PackedItem {
  return [
    item.id,
    item.title,
    item.budget,
    item.currency,
    item.status,
    item.createdAt,
    item.acceptedCount,
    item.spotsLeft,
  ];
}

/** The item of a tuple that starts with a packed item, its fields in `toTaskListItem`'s order. */
export function unpackItem(packed: readonly [...PackedItem, ...unknown[]]): TaskListItem {
  const [id, title, budget, currency, status, createdAt, acceptedCount, spotsLeft] = packed;
  return { id, title, budget, currency, status, createdAt, acceptedCount, spotsLeft };
}
