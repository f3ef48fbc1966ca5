/** Shortcuts for the alert tests: create an alert over HTTP, read the alerts' index entries. */
import assert from "node:assert/strict";
import { bearer, type TestContext } from "../helpers.ts";

/** Creates an alert as the session's user; returns the body. */
export async function postAlert(
  svc: TestContext,
  token: string,
  body: { name?: string; filters: Record<string, unknown> },
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await svc.request("/api/v1/alerts", {
    method: "POST",
    headers: bearer(token),
    json: { name: body.name ?? "My alert", filters: body.filters },
  });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
}

/**
 * Every place the index files `alertId` under: pages holding it ("w/kit", "n/paris", "g/0:u09t"),
 * and list entries of the index's layout 1 ("legacy n/paris", "legacy g/0/u09t").
 */
export async function indexPlaces(kv: Deno.Kv, alertId: string): Promise<string[]> {
  const places: string[] = [];
  for await (const entry of kv.list<{ id: string }>({ prefix: ["alert_index"] })) {
    if (entry.value.id !== alertId) continue;
    places.push(`legacy ${entry.key.slice(1, -1).map(String).join("/")}`);
  }
  const holds = (bytes: Uint8Array) =>
    (JSON.parse(new TextDecoder().decode(bytes)) as { entries: { id: string }[] }).entries
      .some((e) => e.id === alertId);
  for await (const entry of kv.list<Uint8Array>({ prefix: ["alert_words"] })) {
    if (holds(entry.value)) places.push(`w/${String(entry.key[1])}`);
  }
  for await (const entry of kv.list<Uint8Array>({ prefix: ["alert_pages"] })) {
    if (holds(entry.value)) places.push(`${String(entry.key[1])}/${String(entry.key[2])}`);
  }
  return places.sort();
}
