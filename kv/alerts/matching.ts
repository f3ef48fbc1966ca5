/**
 * Matching a new task against the alerts (the `alert_match` job, written in the task's creation
 * atomic): the index gives the candidates, explore's predicate decides, and the matches are
 * recorded with their `task.matched` events a part of the alerts at a time (match_parts.ts), so
 * that a job run twice sends nothing twice and a crash mid-way loses nothing.
 */
import { taskProbes } from "../../domain/alerts/anchors.ts";
import { alertMatcher } from "../../domain/alerts/match.ts";
import type { ExploreItem } from "../../domain/explore.ts";
import { isExplorable } from "../../domain/explore.ts";
import { searchTerms, type TaskRecord } from "../../domain/tasks/task.ts";
import type { JobContext } from "../jobs/types.ts";
import { addJob } from "../jobs/schedule.ts";
import { tasks } from "../keyspace.ts";
import { findCandidates } from "./candidates.ts";
import type { IndexedAlert } from "./pages.ts";
import { recordMatches } from "./match_parts.ts";

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
  const check = alertMatcher(task, searchTerms(task));
  const matched: TaskMatches["matched"] = [];
  for (const alert of candidates.alerts) {
    const item = check(alert.userId, alert);
    if (item) matched.push({ alert, item });
  }
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
  await recordMatches(kv, { task, matched, now: ctx.now() });
}
