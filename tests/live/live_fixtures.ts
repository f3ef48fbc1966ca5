/** A service on a real socket for live stream tests, and its calls over fetch. */
import { serveApp, type ServeOptions } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";
import type { Deps } from "../../routes/router/env.ts";
import type { Scope } from "../../domain/auth.ts";

export interface LiveService extends AsyncDisposable {
  base: string;
  deps: Deps;
}

export async function liveService(options: ServeOptions = {}): Promise<LiveService> {
  return await serveApp({
    ...options,
    settings: { RATE_LIMIT_PER_HOUR: 100000, ...options.settings },
  });
}

/** JSON over fetch: status and body. */
export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown } = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.json !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

let users = 0;

/** A new account's session token and id. */
export async function liveUser(base: string): Promise<{ id: string; token: string }> {
  const email = `live${++users}-${crypto.randomUUID()}@example.com`;
  const password = "correct horse battery";
  const created = await send(`${base}/v1/users`, {
    method: "POST",
    json: { email, password, firstName: "Live" },
  });
  if (created.status !== 201) throw new Error(`sign-up: ${JSON.stringify(created.body)}`);
  const login = await send(`${base}/v1/auth/token`, { method: "POST", json: { email, password } });
  return { id: created.body.id, token: login.body.token };
}

export const bearerOf = (token: string) => ({ Authorization: `Bearer ${token}` });

/** An API key of the account, with `scopes`. */
export async function liveKey(
  base: string,
  token: string,
  scopes: Scope[] = ["tasks:read", "tasks:write"],
): Promise<{ id: string; value: string }> {
  const res = await send(`${base}/api/v1/keys`, {
    method: "POST",
    headers: bearerOf(token),
    json: { name: "live", scopes, expiresInDays: 30 },
  });
  if (res.status !== 201) throw new Error(`key: ${JSON.stringify(res.body)}`);
  return { id: res.body.id, value: res.body.key };
}

/** Creates a task as `headers`' credential; its id. */
export async function postLiveTask(
  base: string,
  headers: Record<string, string>,
  title = "Live task",
): Promise<string> {
  const res = await send(`${base}/api/v1/tasks`, {
    method: "POST",
    headers,
    json: taskBody({ title }),
  });
  if (res.status !== 201) throw new Error(`task: ${JSON.stringify(res.body)}`);
  return res.body.id;
}
