/**
 * Whether a new task matches an alert: exactly when explore, given the alert's filters, would
 * list it (explore's own predicate), its budget reaches `minBudget`, and it is not the alert
 * owner's own task. Also the `task.matched` event's data.
 */
import { z } from "zod";
import { ExploreItem, type ExploreTask, matchExplore, roundKm } from "../explore.ts";
import { toTaskListItem } from "../tasks/task_view.ts";
import type { AlertCriteria } from "./alert.ts";

/** The explore item of a task `matchExplore` accepted, as explore lists it. */
export function exploreItemOf(task: ExploreTask, distanceKm?: number): ExploreItem {
  const item: ExploreItem = { ...toTaskListItem(task), location: task.location };
  if (distanceKm !== undefined) item.distanceKm = roundKm(distanceKm);
  return item;
}

/** The explore item when `task` matches the alert of `ownerId` with `criteria`, else null. */
export function alertMatch(
  task: ExploreTask,
  alert: { ownerId: string; criteria: AlertCriteria; terms: readonly string[] },
): ExploreItem | null {
  if (task.userId === alert.ownerId) return null;
  const { minBudget } = alert.criteria;
  if (minBudget !== undefined && task.budget < minBudget) return null;
  const found = matchExplore(task, alert.terms, alert.criteria.explore);
  return found ? exploreItemOf(task, found.distanceKm) : null;
}

/** The data of a `task.matched` event. */
export const TaskMatched = z.object({
  alertId: z.uuid(),
  task: ExploreItem,
}).meta({ id: "TaskMatched" });
export type TaskMatched = z.infer<typeof TaskMatched>;
