/**
 * Recounts a store's tasks against their applications and histories, reading KV directly: what
 * the cancellation tests check after every step, in-process and across processes.
 */
import assert from "node:assert/strict";
import { type ApplicationRecord, effective, isActive } from "../../domain/application.ts";
import type { HistoryEntry } from "../../domain/history/task_history.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { applications, taskHistory, tasks } from "../../kv/keyspace.ts";
import { assertTaskIndexesConsistent } from "../tasks/task_consistency.ts";

/** What a recount found, for the caller's own checks. */
export interface Recount {
  tasks: Map<string, TaskRecord>;
  /** Each task's applications as they read (`effective`). */
  applications: Map<string, ApplicationRecord[]>;
  histories: Map<string, HistoryEntry[]>;
}

async function listAll<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvEntry<T>[]> {
  const found: Deno.KvEntry<T>[] = [];
  for await (const entry of kv.list<T>({ prefix })) found.push(entry);
  return found;
}

/**
 * Fails unless every task's count is its accepted applications as they read (cancelled ones for a
 * cancelled task), no cancelled or closed task holds an active application, each history starts
 * with `created` and ends with the task's closing, and every index entry agrees with its record.
 * `settled` (no job left to run): the stored statuses, markers and marks are what they read.
 */
export async function assertRecordsAgree(
  kv: Deno.Kv,
  options: { settled: boolean; label: string },
): Promise<Recount> {
  const { label } = options;
  const taskList = (await listAll<TaskRecord>(kv, tasks.recordPrefix())).map((e) => e.value);
  const byId = new Map(taskList.map((t) => [t.id, t]));
  const apps = new Map<string, ApplicationRecord[]>();
  for (const { value: app } of await listAll<ApplicationRecord>(kv, ["applications"])) {
    const read = effective(app, byId.get(app.taskId) ?? null);
    if (options.settled) assert.equal(app.status, read.status, `${label}: ${app.id} stored`);
    apps.set(app.taskId, [...apps.get(app.taskId) ?? [], read]);
  }
  const histories = new Map<string, HistoryEntry[]>();
  for (const task of taskList) {
    const mine = apps.get(task.id) ?? [];
    const held = task.status === "cancelled" ? "cancelled" : "accepted";
    const count = mine.filter((a) => a.status === held).length;
    assert.equal(task.acceptedCount ?? 0, count, `${label}: ${task.id} counts its people`);
    assert.ok(count <= task.maxPeople, `${label}: ${task.id} within maxPeople`);
    if (task.status !== "published") {
      const open = mine.filter((a) => a.status === "pending" || a.status === "accepted");
      const kept = task.status === "completed" ? open.filter((a) => a.status === "pending") : open;
      assert.deepEqual(kept, [], `${label}: ${task.id} (${task.status}) holds no open application`);
    }
    const entries = (await listAll<HistoryEntry>(kv, taskHistory.prefix(task.id)))
      .map((e) => e.value);
    histories.set(task.id, entries);
    assert.equal(entries[0]?.type, "created", `${label}: ${task.id} history starts`);
    assert.equal(entries.length, task.historySeq, `${label}: ${task.id} history count`);
    const closings = entries.filter((e) => e.type === "completed" || e.type === "cancelled");
    if (task.status === "published") assert.deepEqual(closings, [], `${label}: open history`);
    else {
      assert.deepEqual(closings.map((e) => e.type), [task.status], `${label}: closed once`);
      assert.equal(entries.at(-1)!.type, task.status, `${label}: the closing is the last entry`);
    }
    const times = entries.map((e) => e.at);
    assert.deepEqual(times, [...times].sort(), `${label}: ${task.id} history oldest first`);
    if (!options.settled) continue;
    for (const app of mine) {
      const marker = await kv.get<string>(applications.active(app.applicantId, app.taskId));
      if (isActive(app.status)) assert.equal(marker.value, app.id, `${label}: ${app.id} marker`);
      else if (marker.value === app.id) assert.fail(`${label}: ${app.id} keeps its marker`);
      if (app.status === "cancelled") {
        const mark = await kv.get(taskHistory.helper(app.taskId, app.applicantId));
        assert.ok(mark.value, `${label}: ${app.id} a cancelled helper keeps their mark`);
      }
    }
  }
  await assertTaskIndexesConsistent(kv);
  return { tasks: byId, applications: apps, histories };
}
