/** The OpenAPI document's `webhooks`: one entry per event type, with its headers and body. */
import assert from "node:assert/strict";
import { EVENT_TYPES } from "../../domain/webhooks/event.ts";
import { setup } from "../helpers.ts";

Deno.test("the document describes every event type's request, headers and payload", async () => {
  await using svc = await setup();
  const doc = await (await svc.request("/openapi.json")).json();
  assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENT_TYPES].sort());
  const dataOf: Record<string, string> = {
    task: "#/components/schemas/TaskDetail",
    api_key: "#/components/schemas/ApiKey",
    webhook: "#/components/schemas/Webhook",
    application: "#/components/schemas/Application",
    review: "#/components/schemas/Review",
  };
  for (const type of EVENT_TYPES) {
    const op = doc.webhooks[type].post;
    const headers = op.parameters.filter((p: { in: string }) => p.in === "header")
      .map((p: { name: string }) => p.name);
    assert.deepEqual(headers, ["webhook-id", "webhook-timestamp", "webhook-signature"], type);
    const ref = op.requestBody.content["application/json"].schema.$ref as string;
    const envelope = doc.components.schemas[ref.split("/").at(-1)!];
    assert.deepEqual(envelope.required, ["id", "type", "createdAt", "data"], type);
    assert.deepEqual(envelope.properties.type.enum, [type]);
    const own: Record<string, string> = {
      "task.matched": "#/components/schemas/TaskMatched",
      "task.cancelled": "#/components/schemas/TaskCancelled",
      "message.created": "#/components/schemas/MessageCreated",
    };
    const data = own[type] ?? dataOf[type.split(".")[0]];
    assert.equal(envelope.properties.data.$ref, data, type);
  }
  const scopes = doc.components.schemas.Scope.enum;
  assert.ok(scopes.includes("webhooks:read") && scopes.includes("webhooks:write"));
});
