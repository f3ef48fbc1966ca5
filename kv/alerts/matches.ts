/** An alert's matched tasks that are still published, newest first, a page at a time. */
import { alertCriteria, type AlertRecord } from "../../domain/alerts/alert.ts";
import { exploreItemOf } from "../../domain/alerts/match.ts";
import { type ExploreItem, isExplorable, matchExplore } from "../../domain/explore.ts";
import { searchTerms, type TaskRecord } from "../../domain/tasks/task.ts";
import { readNewestFirst } from "../cursor.ts";
import { alerts, tasks } from "../keyspace.ts";

const GETMANY_MAX = 10;

/**
 * One page: up to `limit` matches read from the index, those whose task is no longer published
 * left out (so a page may hold fewer), and the position to continue after.
 */
export async function listMatches(
  kv: Deno.Kv,
  page: { alert: AlertRecord; limit: number; before?: string },
): Promise<{ items: ExploreItem[]; next: string | null }> {
  const read = await readNewestFirst<string>(kv, {
    prefix: alerts.matchesPrefix(page.alert.id),
    limit: page.limit,
    before: page.before,
  });
  const keys = read.entries.map((e) => tasks.record(e.value));
  const groups: Deno.KvKey[][] = [];
  for (let i = 0; i < keys.length; i += GETMANY_MAX) groups.push(keys.slice(i, i + GETMANY_MAX));
  const found = (await Promise.all(groups.map((g) => kv.getMany<TaskRecord[]>(g)))).flat();
  const criteria = alertCriteria(page.alert.filters);
  const items = found.flatMap(({ value: task }) => {
    if (!task || !isExplorable(task)) return [];
    // The distance from the alert's circle as it now stands, as explore would show it.
    const distance = criteria.geo
      ? matchExplore(task, searchTerms(task), criteria)?.distanceKm
      : undefined;
    return [exploreItemOf(task, distance)];
  });
  return { items, next: read.next };
}
