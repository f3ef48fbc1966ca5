/** The contract test's successful calls of the alert operations (tests/openapi/contract_fixtures.ts). */
import { type Calls, keyHeaders, type Session } from "../openapi/contract_session.ts";

/** An alert of the session's user: its id. */
async function newAlert(s: Session): Promise<string> {
  const res = await s.svc.request("/api/v1/alerts", {
    method: "POST",
    headers: keyHeaders(s),
    json: { name: "Taps", filters: { search: "tap", countryCode: "FR" } },
  });
  return (await res.json()).id;
}

/** The successful calls of the alert operations. */
export const ALERT_CALLS: Calls = {
  "POST /alerts": (s) =>
    Promise.resolve({
      path: "/api/v1/alerts",
      init: {
        method: "POST",
        headers: keyHeaders(s),
        json: { name: "Near me", filters: { latitude: 48.85, longitude: 2.35, radiusKm: 5 } },
      },
    }),
  "GET /alerts": async (s) => {
    await newAlert(s);
    return { path: "/api/v1/alerts", init: { headers: keyHeaders(s) } };
  },
  "GET /alerts/{id}": async (s) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: { headers: keyHeaders(s) },
  }),
  "PATCH /alerts/{id}": async (s) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: {
      method: "PATCH",
      headers: keyHeaders(s),
      json: { enabled: false, filters: { countryCode: "FR", minBudget: 5 } },
    },
  }),
  "DELETE /alerts/{id}": async (s) => ({
    path: `/api/v1/alerts/${await newAlert(s)}`,
    init: { method: "DELETE", headers: keyHeaders(s) },
  }),
  "GET /alerts/{id}/matches": async (s) => ({
    path: `/api/v1/alerts/${await newAlert(s)}/matches?limit=1`,
    init: { headers: keyHeaders(s) },
  }),
};
