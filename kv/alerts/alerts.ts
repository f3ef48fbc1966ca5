/**
 * Alerts in KV: each write is one atomic holding the record, the account's alert count (checked,
 * so the limit of 20 is exact across instances) and the alert's index entries, moved together
 * when its filters change or it is switched off.
 */
import { type AlertRecord, MAX_ALERTS } from "../../domain/alerts/alert.ts";
import { AppError, notFound } from "../../domain/errors.ts";
import type { UserRecord } from "../../domain/users/user.ts";
import { atomically, commit } from "../commit.ts";
import { addJob } from "../jobs/schedule.ts";
import { alerts, users } from "../keyspace.ts";
import { fileAlert, type Placement, unfileAlert } from "./alert_filing.ts";
import { Pages } from "./pages.ts";

const CONFLICT = "The account's alerts changed too often to complete the request; try again";

/** An alert as stored: the record and where it is filed while enabled. */
export interface StoredAlert extends AlertRecord {
  placement?: Placement;
}

/** Every alert of an account, oldest first. */
export async function listAlerts(kv: Deno.Kv, userId: string): Promise<StoredAlert[]> {
  const found: StoredAlert[] = [];
  for await (const entry of kv.list<StoredAlert>({ prefix: alerts.byUserPrefix(userId) })) {
    found.push(entry.value);
  }
  return found.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

export async function getAlert(
  kv: Deno.Kv,
  userId: string,
  alertId: string,
): Promise<StoredAlert | null> {
  return (await kv.get<StoredAlert>(alerts.record(userId, alertId))).value;
}

/** The stored form of `alert`, filed in `op` when enabled. */
async function stored(pages: Pages, alert: AlertRecord): Promise<StoredAlert> {
  const { placement: _, ...record } = alert as StoredAlert;
  return alert.enabled ? { ...record, placement: await fileAlert(pages, alert) } : record;
}

/**
 * Stores a new alert unless the account holds 20. The count and the account are checked: two
 * creations on any instances never both pass one count, and a creation racing the account's
 * deletion either lands before it (and the purge removes it) or fails.
 */
export function createAlert(kv: Deno.Kv, alert: AlertRecord): Promise<StoredAlert> {
  return atomically(CONFLICT, async () => {
    const [count, user] = await kv.getMany<[number, UserRecord]>([
      alerts.count(alert.userId),
      users.record(alert.userId),
    ]);
    if (!user.value || user.value.deletedAt) throw notFound("User");
    const held = count.value ?? 0;
    if (held >= MAX_ALERTS) {
      throw new AppError(
        "ALERT_LIMIT",
        `An account may have at most ${MAX_ALERTS} alerts; delete one first`,
      );
    }
    const pages = new Pages(kv);
    const op = kv.atomic().check(count).check(user)
      .check({ key: alerts.record(alert.userId, alert.id), versionstamp: null });
    const record = await stored(pages, alert);
    pages.writeTo(op);
    op.set(alerts.record(alert.userId, alert.id), record).set(alerts.count(alert.userId), held + 1);
    return { value: record, op };
  });
}

/**
 * Changes one alert: `change` sees the stored alert and returns the next (or null for none); its
 * index entries move from the old filters to the new in the same atomic.
 */
export function changeAlert(
  kv: Deno.Kv,
  request: {
    userId: string;
    alertId: string;
    /** Domain's pure transition from the stored alert (`editedAlert`), run again each round. */
    change: (alert: AlertRecord) => AlertRecord;
  },
): Promise<StoredAlert> {
  return atomically(CONFLICT, async () => {
    const entry = await kv.get<StoredAlert>(alerts.record(request.userId, request.alertId));
    if (!entry.value) throw notFound("Alert");
    const pages = new Pages(kv);
    const op = kv.atomic().check(entry);
    await unfileAlert(op, pages, entry.value);
    const record = await stored(pages, request.change(entry.value));
    pages.writeTo(op);
    op.set(entry.key, record);
    return { value: record, op };
  });
}

/** Deletes one alert, its index entries and (in the background) its matches; false if absent. */
export function deleteAlert(kv: Deno.Kv, userId: string, alertId: string): Promise<boolean> {
  return atomically(CONFLICT, async () => {
    const [entry, count] = await kv.getMany<[StoredAlert, number]>([
      alerts.record(userId, alertId),
      alerts.count(userId),
    ]);
    if (!entry.value) return { value: false };
    const pages = new Pages(kv);
    const op = kv.atomic().check(entry).check(count);
    await unfileAlert(op, pages, entry.value);
    pages.writeTo(op);
    op.delete(entry.key).set(alerts.count(userId), Math.max(0, (count.value ?? 1) - 1));
    addJob(op, { kind: "alert_forget", alertId });
    return { value: true, op };
  });
}

/** Deletes every alert of an account (its purge). */
export async function deleteUserAlerts(kv: Deno.Kv, userId: string): Promise<void> {
  for (const alert of await listAlerts(kv, userId)) await deleteAlert(kv, userId, alert.id);
  // The account is deleted, so no creation can race this.
  await commit(kv.atomic().delete(alerts.count(userId)));
}

/** Matches forgotten per run of a deleted alert's job. */
const FORGET_BATCH = 500;

/** Deletes a deleted alert's matches, a batch a run; runs again while some are left. */
export async function forgetMatches(
  ctx: { kv: Deno.Kv },
  payload: { alertId: string },
): Promise<void | { again: { at: number } }> {
  const keys: Deno.KvKey[] = [];
  const listed = ctx.kv.list({ prefix: alerts.matchesPrefix(payload.alertId) }, {
    limit: FORGET_BATCH,
  });
  for await (const entry of listed) keys.push(entry.key);
  for (let i = 0; i < keys.length; i += 100) {
    const op = ctx.kv.atomic();
    for (const key of keys.slice(i, i + 100)) op.delete(key);
    await commit(op);
  }
  if (keys.length === FORGET_BATCH) return { again: { at: 0 } };
}
