/**
 * The contract test's successful calls of the webhook and security-log operations
 * (tests/openapi/contract_fixtures.ts).
 */
import { bearer, signUp } from "../helpers.ts";
import { type Calls, keyHeaders, type Session } from "../openapi/contract_session.ts";

const PUBLIC_HOOK = "https://93.184.215.14/hook";

/** An endpoint of a fresh account (the 10-endpoint limit stays far), and its session. */
async function newWebhook(s: Session): Promise<{ id: string; headers: HeadersInit }> {
  const { token } = await signUp(s.svc);
  const res = await s.svc.request("/v1/webhooks", {
    method: "POST",
    headers: bearer(token),
    json: { url: PUBLIC_HOOK, events: ["*"] },
  });
  return { id: (await res.json()).id, headers: bearer(token) };
}

/** The successful calls of the webhook and security-log operations. */
export const WEBHOOK_CALLS: Calls = {
  "POST /webhooks": (s) =>
    Promise.resolve({
      path: "/v1/webhooks",
      init: {
        method: "POST",
        headers: keyHeaders(s),
        json: { url: PUBLIC_HOOK, events: ["task.created"], description: "CI" },
      },
    }),
  "GET /webhooks": async (s) => {
    const hook = await newWebhook(s);
    return { path: "/v1/webhooks", init: { headers: hook.headers } };
  },
  "GET /webhooks/{id}": async (s) => {
    const hook = await newWebhook(s);
    return { path: `/v1/webhooks/${hook.id}`, init: { headers: hook.headers } };
  },
  "PATCH /webhooks/{id}": async (s) => {
    const hook = await newWebhook(s);
    return {
      path: `/v1/webhooks/${hook.id}`,
      init: { method: "PATCH", headers: hook.headers, json: { enabled: false } },
    };
  },
  "DELETE /webhooks/{id}": async (s) => {
    const hook = await newWebhook(s);
    return { path: `/v1/webhooks/${hook.id}`, init: { method: "DELETE", headers: hook.headers } };
  },
  "POST /webhooks/{id}/rotate-secret": async (s) => {
    const hook = await newWebhook(s);
    return {
      path: `/v1/webhooks/${hook.id}/rotate-secret`,
      init: { method: "POST", headers: hook.headers },
    };
  },
  "POST /webhooks/{id}/test": async (s) => {
    const hook = await newWebhook(s);
    return {
      path: `/v1/webhooks/${hook.id}/test`,
      init: { method: "POST", headers: hook.headers },
    };
  },
  "GET /webhooks/{id}/deliveries": async (s) => {
    const hook = await newWebhook(s);
    for (let i = 0; i < 2; i++) {
      await s.svc.request(`/v1/webhooks/${hook.id}/test`, {
        method: "POST",
        headers: hook.headers,
      });
    }
    return { path: `/v1/webhooks/${hook.id}/deliveries?limit=1`, init: { headers: hook.headers } };
  },
  "POST /webhooks/{id}/deliveries/{deliveryId}/resend": async (s) => {
    const hook = await newWebhook(s);
    const delivery = await (await s.svc.request(`/v1/webhooks/${hook.id}/test`, {
      method: "POST",
      headers: hook.headers,
    })).json();
    return {
      path: `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/resend`,
      init: { method: "POST", headers: hook.headers },
    };
  },
  "GET /security-log": async (s) => {
    const { token } = await signUp(s.svc);
    await signUp(s.svc);
    await s.svc.request("/v1/auth/logout", { method: "POST", headers: bearer(token) });
    const again = await signUp(s.svc);
    await s.svc.request("/v1/keys", {
      method: "POST",
      headers: bearer(again.token),
      json: { name: "log", scopes: ["tasks:read"], expiresInDays: 1 },
    });
    return { path: "/v1/security-log?limit=1", init: { headers: bearer(again.token) } };
  },
};
