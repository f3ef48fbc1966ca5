/** Shared by the task listing tests: reading a listing and checking its order. */
import assert from "node:assert/strict";
import { type TestContext } from "../helpers.ts";
import { callTask, type TaskCall } from "./task_fixtures.ts";

export interface Item {
  id: string;
  title: string;
  budget: number;
  status: string;
  createdAt: string;
}

/** A listing read from this machine, so its Link URLs are absolute (docs/security.md, "Links"). */
export async function list(svc: TestContext, url: string, headers: HeadersInit) {
  const res = await svc.request(url, { headers, ip: "127.0.0.1" });
  const body = await res.json();
  return { res, status: res.status, body, items: body as Item[] };
}

/** Newest first: createdAt descending, then id descending. */
export function isNewestFirst(items: Item[]): boolean {
  return items.every((item, i) =>
    i === 0 ||
    items[i - 1].createdAt > item.createdAt ||
    (items[i - 1].createdAt === item.createdAt && items[i - 1].id > item.id)
  );
}

/** A call to /api/v1/tasks/{id} that must succeed. */
export async function send(svc: TestContext, call: TaskCall) {
  assert.equal(await callTask(svc, call), 200);
}
