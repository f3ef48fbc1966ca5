/**
 * A request to an app in process, from a fixed public address, with its JSON body read: the one
 * way the in-process benches call the service (bench/lib/latency_app.ts, bench:kv-cost).
 */
import type { createApp } from "../../routes/app.ts";

/** The app of an instance, as `createApp` answers it. */
export type App = ReturnType<typeof createApp>;

/** A request's init; `json` is serialized as its body. */
export type Init = RequestInit & { json?: unknown };

/** The client address every request comes from. */
export const peer = { remoteAddr: { hostname: "203.0.113.7", port: 40000, transport: "tcp" } };

/** Sends a request to `target` and reads its JSON body; a failure stops the bench. */
// deno-lint-ignore no-explicit-any
export async function sendJson(target: App, path: string, init: Init = {}): Promise<any> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(init.json);
  }
  const res = await target.request(path, { ...init, headers, body }, peer);
  const text = await res.text();
  if (res.status >= 400) {
    throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${text}`);
  }
  return text ? JSON.parse(text) : null;
}
