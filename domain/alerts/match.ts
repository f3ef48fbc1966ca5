/**
 * Whether a new task matches an alert: exactly when explore, given the alert's filters, would
 * list it (explore's own predicate), its budget reaches `minBudget`, and it is not the alert
 * owner's own task. Also the `task.matched` event's data.
 */
import { z } from "zod";
import { ExploreItem, type ExploreTask, matchExplore, roundKm } from "../explore.ts";
import { toTaskListItem } from "../tasks/task_view.ts";
import { type AlertCriteria, narrowsByPlaceOrWord } from "./alert.ts";

/** The explore item of a task `matchExplore` accepted, as explore lists it. */
export function exploreItemOf(task: ExploreTask, distanceKm?: number): ExploreItem {
  const item: ExploreItem = { ...toTaskListItem(task), location: task.location };
  if (distanceKm !== undefined) item.distanceKm = roundKm(distanceKm);
  return item;
}

/**
 * The check of one new task against many alerts: the explore item when the task matches the
 * alert of `ownerId` with `criteria`, else null. The refusals that read no text come first; the
 * task's terms are given once, and its item is built once and shared by the matches (a copy
 * only where a geo filter adds the distance).
 */
export function alertMatcher(
  task: ExploreTask,
  terms: readonly string[],
): (ownerId: string, criteria: AlertCriteria) => ExploreItem | null {
  let item: ExploreItem | undefined;
  return (ownerId, criteria) => {
    if (task.userId === ownerId) return null;
    // Alerts stored before the rule (docs/alerts.md) are kept but match nothing.
    if (!narrowsByPlaceOrWord(criteria)) return null;
    const { minBudget } = criteria;
    if (minBudget !== undefined && task.budget < minBudget) return null;
    const found = matchExplore(task, terms, criteria);
    if (!found) return null;
    item ??= exploreItemOf(task);
    return found.distanceKm === undefined
      ? item
      : { ...item, distanceKm: roundKm(found.distanceKm) };
  };
}

/** The data of a `task.matched` event. */
export const TaskMatched = z.object({
  alertId: z.uuid(),
  task: ExploreItem,
}).meta({ id: "TaskMatched" });
export type TaskMatched = z.infer<typeof TaskMatched>;
