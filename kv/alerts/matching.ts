/**
 * Matching a new task against the alerts (the `alert_match` job, written in the task's creation
 * atomic): the index gives the candidates, explore's predicate decides, and each match is
 * recorded under a check that it is new, with its `task.matched` event, in one atomic; so a job
 * that runs twice sends nothing twice.
 */
import { alertCriteria } from "../../domain/alerts/alert.ts";
import { taskProbes } from "../../domain/alerts/anchors.ts";
import { alertMatch } from "../../domain/alerts/match.ts";
import type { ExploreItem } from "../../domain/explore.ts";
import { isExplorable } from "../../domain/explore.ts";
import { searchTerms, type TaskRecord } from "../../domain/tasks/task.ts";
import { atomically } from "../commit.ts";
import { addEffects, subscriptionKey } from "../effects.ts";
import type { JobContext } from "../jobs/types.ts";
import { addJob } from "../jobs/schedule.ts";
import { alerts, tasks, users } from "../keyspace.ts";
import { findCandidates } from "./candidates.ts";
import type { IndexedAlert } from "./index.ts";
import type { StoredAlert } from "./store.ts";

const CONFLICT = "The alert changed too often to record its match";

/** Adds the matching of a newly published task to its creation's atomic. */
export function queueAlertMatching(op: Deno.AtomicOperation, task: TaskRecord): void {
  if (isExplorable(task)) addJob(op, { kind: "alert_match", taskId: task.id });
}

/** The alerts a task matches by the index as it stands, and what finding them took. */
export interface TaskMatches {
  matched: { alert: IndexedAlert; item: ExploreItem }[];
  /** Candidates the index gave, each checked with explore's predicate. */
  examined: number;
  reads: number;
}

/** Finds the enabled alerts `task` matches (the owner's own apart). */
export async function findMatches(kv: Deno.Kv, task: TaskRecord): Promise<TaskMatches> {
  const candidates = await findCandidates(kv, taskProbes(task));
  const terms = searchTerms(task);
  const matched = candidates.alerts.flatMap((alert) => {
    const criteria = alertCriteria(alert.filters);
    const item = alertMatch(task, { ownerId: alert.userId, criteria, terms });
    return item ? [{ alert, item }] : [];
  });
  return { matched, examined: candidates.alerts.length, reads: candidates.reads };
}

/** The job: matches a published task and records each match once, with its event. */
export async function matchTask(
  ctx: Pick<JobContext, "kv" | "now">,
  payload: { taskId: string },
): Promise<void> {
  const { kv } = ctx;
  const task = (await kv.get<TaskRecord>(tasks.record(payload.taskId))).value;
  if (!task || !isExplorable(task)) return;
  const { matched } = await findMatches(kv, task);
  for (const { alert } of matched) await recordMatch(kv, { alert, task, now: ctx.now() });
}

/**
 * Records one match unless it was recorded before, and raises `task.matched` for the alert's
 * owner in the same atomic. The alert is read again: one deleted, switched off or changed since
 * the index was read is judged as it now stands; an account being purged hears nothing.
 */
async function recordMatch(
  kv: Deno.Kv,
  match: { alert: IndexedAlert; task: TaskRecord; now: number },
): Promise<void> {
  const { task, now } = match;
  const { id: alertId, userId } = match.alert;
  await atomically(CONFLICT, async () => {
    const [alertEntry, seen, purge, subscription] = await kv.getMany<
      [StoredAlert, string, unknown, unknown]
    >([
      alerts.record(userId, alertId),
      alerts.match(alertId, task.orderKey),
      users.purge(userId),
      subscriptionKey(userId),
    ]);
    const alert = alertEntry.value;
    if (!alert?.enabled || seen.value !== null || purge.value !== null) return { value: undefined };
    const item = alertMatch(task, {
      ownerId: alert.userId,
      criteria: alertCriteria(alert.filters),
      terms: searchTerms(task),
    });
    if (!item) return { value: undefined };
    const op = kv.atomic().check(alertEntry).check(seen).check(purge)
      .set(alerts.match(alertId, task.orderKey), task.id);
    await addEffects(kv, op, {
      event: { type: "task.matched", data: { alertId, task: item } },
      userId,
      now,
      subscriptionRead: subscription,
    });
    return { value: undefined, op };
  });
}
