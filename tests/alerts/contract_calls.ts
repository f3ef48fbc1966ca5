/** The contract test's successful calls of the alert operations (tests/openapi/contract_fixtures.ts). */
import { apiKey } from "../helpers.ts";
import type { Call, Session } from "../openapi/contract_session.ts";

const k = (s: Session): HeadersInit => apiKey(s.key);

/** An alert of the session's user: its id. */
async function newAlert(s: Session): Promise<string> {
  const res = await s.svc.request("/api/v1/alerts", {
    method: "POST",
    headers: k(s),
    json: { name: "Taps", filters: { search: "tap", countryCode: "FR" } },
  });
  return (await res.json()).id;
}

/** The successful calls of the alert operations. */
export const ALERT_CALLS: Record<string, (s: Session) => Promise<Call>> = {
  "POST /alerts": (s: Session) =>
    Promise.resolve({
      path: "/api/v1/alerts",
      init: {
        method: "POST",
        headers: k(s),
        json: { name: "Near me", filters: { latitude: 48.85, longitude: 2.35, radiusKm: 5 } },
      },
    }),
  "GET /alerts": async (s: Session) => {
    await newAlert(s);
    return { path: "/api/v1/alerts", init: { headers: k(s) } };
  },
  "GET /alerts/{id}": async (s: Session) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: { headers: k(s) },
  }),
  "PATCH /alerts/{id}": async (s: Session) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: {
      method: "PATCH",
      headers: k(s),
      json: { enabled: false, filters: { countryCode: "FR", minBudget: 5 } },
    },
  }),
  "DELETE /alerts/{id}": async (s: Session) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: { method: "DELETE", headers: k(s) },
  }),
  "GET /alerts/{id}/matches": async (s: Session) => ({
    path: `/api/v1/alerts/${await newAlert(s)}/matches?limit=1`,
    init: { headers: k(s) },
  }),
};
