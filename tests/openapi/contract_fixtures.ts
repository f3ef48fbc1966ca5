/** The contract test's calls: a successful request for each operation, and the records they need. */
import { apiKey, bearer, createKey, signUp } from "../helpers.ts";
import { REVIEW_BODIES, REVIEW_CALLS } from "../reviews/contract_calls.ts";
import { CANCEL_BODIES, CANCEL_CALLS } from "../cancellation/contract_calls.ts";
import { CONVERSATION_BODIES, CONVERSATION_CALLS } from "../conversations/contract_calls.ts";
import { ALERT_CALLS } from "../alerts/contract_calls.ts";
import { WEBHOOK_CALLS } from "../webhooks/contract_calls.ts";
import { type Calls, keyHeaders, type Session } from "./contract_session.ts";

/** The service's own pages and the account, key and project operations. */
const SERVICE_CALLS: Calls = {
  "GET /health": () => Promise.resolve({ path: "/health" }),
  "GET /openapi.json": () => Promise.resolve({ path: "/openapi.json" }),
  "GET /docs": () => Promise.resolve({ path: "/docs" }),
  "GET /favicon.ico": () => Promise.resolve({ path: "/favicon.ico" }),
  "GET /": () => Promise.resolve({ path: "/" }),
  "GET /dashboard": () => Promise.resolve({ path: "/dashboard" }),
  "GET /dashboard/app.js": () => Promise.resolve({ path: "/dashboard/app.js" }),
  "GET /dashboard/app.css": () => Promise.resolve({ path: "/dashboard/app.css" }),
  "GET /dashboard/chart.js": () => Promise.resolve({ path: "/dashboard/chart.js" }),
  "POST /users": () =>
    Promise.resolve({
      path: "/v1/users",
      init: {
        method: "POST",
        json: {
          email: `c-${crypto.randomUUID()}@example.com`,
          password: "long enough password",
          firstName: "Grace",
          lastName: "Hopper",
          profilePic: "https://img.example.com/grace.png",
        },
      },
    }),
  "GET /users/me": (s) =>
    Promise.resolve({ path: "/v1/users/me", init: { headers: keyHeaders(s) } }),
  "GET /users": (s) =>
    Promise.resolve({ path: "/v1/users?limit=1", init: { headers: keyHeaders(s) } }),
  "GET /users/{id}": (s) =>
    Promise.resolve({ path: `/api/v1/users/${s.other.id}`, init: { headers: keyHeaders(s) } }),
  "PUT /users/{id}": (s) =>
    Promise.resolve({
      path: `/v1/users/${s.user.id}`,
      init: { method: "PUT", headers: keyHeaders(s), json: { lastName: null } },
    }),
  "DELETE /users/{id}": async (s) => {
    const doomed = await signUp(s.svc);
    return {
      path: `/v1/users/${doomed.id}`,
      init: { method: "DELETE", headers: bearer(doomed.token) },
    };
  },
  "POST /auth/token": (s) =>
    Promise.resolve({
      path: "/v1/auth/token",
      init: { method: "POST", json: { email: s.user.email, password: s.user.password } },
    }),
  "POST /auth/logout": async (s) => {
    const { token } = await signUp(s.svc);
    return { path: "/v1/auth/logout", init: { method: "POST", headers: bearer(token) } };
  },
  "POST /keys": (s) =>
    Promise.resolve({
      path: "/api/v1/keys",
      init: {
        method: "POST",
        headers: bearer(s.user.token),
        json: { name: "contract", scopes: ["tasks:read"], expiresInDays: 7, ipWhitelist: ["::1"] },
      },
    }),
  "GET /keys": (s) =>
    Promise.resolve({ path: "/api/v1/keys", init: { headers: bearer(s.user.token) } }),
  "PATCH /keys/{id}": async (s) => {
    const key = await createKey(s.svc, s.user.token);
    return {
      path: `/api/v1/keys/${key.id}`,
      init: {
        method: "PATCH",
        headers: bearer(s.user.token),
        json: { name: "renamed", rateLimitPerHour: 50 },
      },
    };
  },
  "POST /keys/{id}/regenerate": async (s) => {
    const key = await createKey(s.svc, s.user.token);
    return {
      path: `/api/v1/keys/${key.id}/regenerate`,
      init: { method: "POST", headers: bearer(s.user.token), json: { expireCurrentIn: "1h" } },
    };
  },
  "GET /keys/{id}/usage": async (s) => {
    const key = await createKey(s.svc, s.user.token);
    for (const status of [200, 404]) {
      const path = status === 200 ? "/v1/users/me" : `/v1/tasks/${crypto.randomUUID()}`;
      await (await s.svc.request(path, { headers: apiKey(key.value) })).body?.cancel();
    }
    s.svc.deps.usage.release();
    await s.svc.deps.rateLimiter.sync();
    return {
      path: `/api/v1/keys/${key.id}/usage?range=7d`,
      init: { headers: bearer(s.user.token) },
    };
  },
  "DELETE /keys/{id}": async (s) => {
    const key = await createKey(s.svc, s.user.token);
    return {
      path: `/api/v1/keys/${key.id}`,
      init: { method: "DELETE", headers: bearer(s.user.token) },
    };
  },
  "GET /projects": async (s) => {
    await newProject(s);
    await newProject(s);
    return { path: "/v1/projects?limit=1", init: { headers: keyHeaders(s) } };
  },
  "POST /projects": (s) =>
    Promise.resolve({
      path: "/v1/projects",
      init: {
        method: "POST",
        headers: keyHeaders(s),
        json: { name: "Roof", description: "Fix tiles" },
      },
    }),
  "GET /projects/{id}": async (s) => ({
    path: `/v1/projects/${await newProject(s)}`,
    init: { headers: keyHeaders(s) },
  }),
  "PUT /projects/{id}": async (s) => ({
    path: `/v1/projects/${await newProject(s)}`,
    init: { method: "PUT", headers: keyHeaders(s), json: { description: "" } },
  }),
  "DELETE /projects/{id}": async (s) => ({
    path: `/v1/projects/${await newProject(s)}`,
    init: { method: "DELETE", headers: keyHeaders(s) },
  }),
};

const TASK = {
  title: "Fix a leaking tap",
  description: "The kitchen tap drips all night",
  budget: 40,
  currency: "EUR",
  location: { coordinates: [2.3522, 48.8566], type: "city", name: "Paris", countryCode: "FR" },
  requirement: "Bring a washer kit",
  dueDate: "2026-12-31",
};

export async function newTask(s: Session): Promise<string> {
  const res = await s.svc.request("/api/v1/tasks", {
    method: "POST",
    headers: keyHeaders(s),
    json: TASK,
  });
  return (await res.json()).id;
}

/** The task operations. */
const TASK_CALLS: Calls = {
  "POST /tasks": (s) =>
    Promise.resolve({
      path: "/api/v1/tasks",
      init: {
        method: "POST",
        headers: { ...keyHeaders(s), "Idempotency-Key": "contract-1" },
        json: TASK,
      },
    }),
  "GET /tasks": async (s) => {
    await newTask(s);
    await newTask(s);
    return {
      path: "/api/v1/tasks?limit=1&payment=Paid&search=tap",
      init: { headers: keyHeaders(s) },
    };
  },
  "GET /tasks/me/status": async (s) => {
    await newTask(s);
    return { path: "/api/v1/tasks/me/status?limit=1&page=2", init: { headers: keyHeaders(s) } };
  },
  "GET /tasks/me/created": async (s) => {
    await newTask(s);
    return { path: "/api/v1/tasks/me/created", init: { headers: keyHeaders(s) } };
  },
  "GET /tasks/explore": async (s) => {
    await newTask(s);
    return { path: "/api/v1/tasks/explore?latitude=48.85&longitude=2.35&radiusKm=10" };
  },
  "GET /tasks/{id}": async (s) => ({ path: `/api/v1/tasks/${await newTask(s)}` }),
  "PATCH /tasks/{id}": async (s) => ({
    path: `/api/v1/tasks/${await newTask(s)}`,
    init: { method: "PATCH", headers: keyHeaders(s), json: { budget: 55.5, dueDate: null } },
  }),
  "DELETE /tasks/{id}": async (s) => ({
    path: `/api/v1/tasks/${await newTask(s)}`,
    init: { method: "DELETE", headers: keyHeaders(s) },
  }),
  "GET /users/{id}/avatar.svg": (s) =>
    Promise.resolve({ path: `/v1/users/${s.other.id}/avatar.svg` }),
};

/** A task of the session's user with a pending application of the other user; its id. */
async function newApplication(s: Session): Promise<string> {
  const res = await s.svc.request(`/api/v1/tasks/${await newTask(s)}/applications`, {
    method: "POST",
    headers: bearer(s.other.token),
    json: { message: "I have the washers" },
  });
  return (await res.json()).id;
}

/** The application operations. */
const APPLICATION_CALLS: Calls = {
  "POST /tasks/{id}/applications": async (s) => ({
    path: `/api/v1/tasks/${await newTask(s)}/applications`,
    init: {
      method: "POST",
      headers: bearer(s.other.token),
      json: { message: "Tomorrow morning?", price: 35.5 },
    },
  }),
  "GET /tasks/{id}/applications": async (s) => {
    const taskId = await newTask(s);
    await s.svc.request(`/api/v1/tasks/${taskId}/applications`, {
      method: "POST",
      headers: bearer(s.other.token),
      json: { message: "Me" },
    });
    return {
      path: `/api/v1/tasks/${taskId}/applications?limit=1`,
      init: { headers: keyHeaders(s) },
    };
  },
  "GET /applications/me": async (s) => {
    await newApplication(s);
    return { path: "/v1/applications/me?limit=1", init: { headers: bearer(s.other.token) } };
  },
  "PATCH /applications/{id}": async (s) => ({
    path: `/api/v1/applications/${await newApplication(s)}`,
    init: { method: "PATCH", headers: keyHeaders(s), json: { status: "accepted" } },
  }),
};

/** A valid body for an operation whose empty body is refused, so an unknown id answers 404. */
export const VALID_BODY: Record<string, unknown> = {
  "POST /tasks/{id}/applications": { message: "Hello" },
  "PATCH /applications/{id}": { status: "withdrawn" },
  ...REVIEW_BODIES,
  ...CANCEL_BODIES,
  ...CONVERSATION_BODIES,
  "POST /alerts": { name: "x", filters: { countryCode: "FR", minBudget: 1 } },
};

async function newProject(s: Session): Promise<string> {
  const res = await s.svc.request("/v1/projects", {
    method: "POST",
    headers: keyHeaders(s),
    json: { name: "Fixture" },
  });
  return (await res.json()).id;
}

/** A key that expires in a moment: a stream opened with it ends then, so its answer can be read whole. */
async function shortLivedKey(s: Session): Promise<string> {
  const res = await s.svc.request("/api/v1/keys", {
    method: "POST",
    headers: bearer(s.user.token),
    json: {
      name: "stream",
      scopes: ["tasks:read"],
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    },
  });
  return (await res.json()).key;
}

/** The live events' operations. */
const STREAM_CALLS: Calls = {
  "GET /events/stream": async (s) => ({
    path: "/api/v1/events/stream",
    init: { headers: apiKey(await shortLivedKey(s)) },
  }),
  "POST /events/stream-tickets": (s) =>
    Promise.resolve({
      path: "/api/v1/events/stream-tickets",
      init: { method: "POST", headers: keyHeaders(s) },
    }),
};

/** A request that should succeed, for each operation, as "METHOD /path" of the document. */
export const HAPPY: Calls = {
  ...SERVICE_CALLS,
  ...TASK_CALLS,
  ...APPLICATION_CALLS,
  ...ALERT_CALLS,
  ...WEBHOOK_CALLS,
  ...REVIEW_CALLS,
  ...CONVERSATION_CALLS,
  ...CANCEL_CALLS,
  ...STREAM_CALLS,
};
