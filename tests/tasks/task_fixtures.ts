/** Task test fixtures: a valid create body and shortcuts to create tasks over HTTP. */
import type { TestContext } from "../helpers.ts";
import { bearer } from "../helpers.ts";

/** A valid create body; `overrides` replace members (undefined removes one). */
export function taskBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    title: "Fix the kitchen sink",
    description: "The tap drips and the drain is slow.",
    budget: 80,
    currency: "EUR",
    location: { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" },
    requirement: "Bring your own tools",
    dueDate: "2030-05-01",
    maxPeople: 2,
    ...overrides,
  };
  for (const [name, value] of Object.entries(body)) if (value === undefined) delete body[name];
  return body;
}

/** A call to /api/v1/tasks/{id}: whose credential, which method, and the JSON body if any. */
export interface TaskCall {
  token: string;
  method: string;
  id: string;
  json?: unknown;
}

/** Calls /api/v1/tasks/{id} and answers the status, the body left unread. */
export async function callTask(svc: TestContext, call: TaskCall): Promise<number> {
  const { token, method, id, json } = call;
  const res = await svc.request(`/api/v1/tasks/${id}`, { method, headers: bearer(token), json });
  await res.body?.cancel();
  return res.status;
}

/** Creates a task as the session's user; returns the created body. */
export async function postTask(
  svc: TestContext,
  token: string,
  overrides: Record<string, unknown> = {},
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await svc.request("/api/v1/tasks", {
    method: "POST",
    headers: bearer(token),
    json: taskBody(overrides),
  });
  if (res.status !== 201) throw new Error(`task creation failed: ${await res.text()}`);
  return await res.json();
}
