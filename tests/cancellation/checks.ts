/**
 * What the cancellation runs check over HTTP after a step, against a recount of the records:
 * explore lists exactly the run's published tasks (and those with spots), an alert's matches
 * exactly the published ones, and each history's acceptances are the acceptances answered 200.
 */
import assert from "node:assert/strict";
import type { Recount } from "./recount.ts";
import { type Answer, SCENARIO_WORD, type Tally } from "./scenario.ts";

/** GETs one path (anonymous, or as `token`). */
export type Get = (path: string, token?: string) => Promise<Answer & { headers: Headers }>;

/** Every item of a cursor listing, following X-Next-Cursor. */
async function everyPage(get: Get, path: string, token?: string): Promise<{ id: string }[]> {
  const items: { id: string }[] = [];
  let next: string | null = "";
  while (next !== null) {
    const sep = path.includes("?") ? "&" : "?";
    const page = await get(next ? `${path}${sep}cursor=${next}` : path, token);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    items.push(...page.body);
    next = page.headers.get("X-Next-Cursor");
  }
  return items;
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

/** Explore, with and without hasSpots, lists exactly the published tasks the recount found. */
export async function assertExploreAgrees(get: Get, recount: Recount, label: string) {
  const published = [...recount.tasks.values()].filter((t) =>
    t.status === "published" && t.deletedAt === null
  );
  const listed = await everyPage(get, `/api/v1/tasks/explore?search=${SCENARIO_WORD}&limit=50`);
  assert.deepEqual(sorted(listed.map((t) => t.id)), sorted(published.map((t) => t.id)), label);
  const spotted = await everyPage(
    get,
    `/api/v1/tasks/explore?search=${SCENARIO_WORD}&hasSpots=true&limit=50`,
  );
  const withSpots = published.filter((t) => (t.acceptedCount ?? 0) < t.maxPeople);
  assert.deepEqual(
    sorted(spotted.map((t) => t.id)),
    sorted(withSpots.map((t) => t.id)),
    `${label}: hasSpots`,
  );
}

/** The alert (matching every task of the run, its owner owning none) lists the published ones. */
export async function assertAlertAgrees(
  get: Get,
  alert: { id: string; token: string },
  recount: Recount,
  label: string,
) {
  const published = [...recount.tasks.values()].filter((t) => t.status === "published");
  const matches = await everyPage(get, `/api/v1/alerts/${alert.id}/matches?limit=50`, alert.token);
  assert.deepEqual(
    sorted(matches.map((t) => t.id)),
    sorted(published.map((t) => t.id)),
    `${label}: alert`,
  );
}

/** Each history holds one acceptance per acceptance answered 200, and one creation. */
export function assertHistoriesAgree(tally: Tally, recount: Recount, label: string) {
  for (const taskId of tally.tasks.keys()) {
    const entries = recount.histories.get(taskId) ?? [];
    const accepted = entries.filter((e) => e.type === "application_accepted").length;
    assert.equal(accepted, tally.accepted.get(taskId) ?? 0, `${label}: ${taskId} acceptances`);
    assert.equal(entries.filter((e) => e.type === "created").length, 1, `${label}: created once`);
  }
}
