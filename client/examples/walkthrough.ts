/**
 * The README's first session, typed: `deno run --allow-net client/examples/walkthrough.ts
 * [http://localhost:8000]` against a running service (a fresh store: it signs up Ada and Bob).
 */
import { ApiError, createClient } from "../mod.ts";

const baseUrl = Deno.args[0] ?? "http://localhost:8000";
const password = "correct horse battery";

// 1. sign up, 2. log in: a session token for managing keys
const anonymous = createClient({ baseUrl });
await anonymous.post("/users", { body: { email: "ada@example.com", password, firstName: "Ada" } });
const { token } = await anonymous.post("/auth/token", {
  body: { email: "ada@example.com", password },
});

// 3. an API key; its value is in this answer only
const created = await createClient({ baseUrl, token }).post("/keys", {
  body: {
    name: "laptop",
    scopes: [
      "tasks:read",
      "tasks:write",
      "profile:read",
      "applications:read",
      "applications:write",
    ],
    expiresInDays: 30,
  },
});
const ada = createClient({ baseUrl, apiKey: created.key });

// 4. call the API with the key
const me = await ada.get("/users/me");
console.log("signed in as", me.email);

// 5. post a task for two people
const task = await ada.post("/tasks", {
  body: {
    title: "Move a piano",
    description: "Third floor, no lift",
    budget: 120,
    currency: "EUR",
    location: { type: "city", name: "Paris", countryCode: "FR", coordinates: [2.3522, 48.8566] },
    requirement: "Strong back",
    maxPeople: 2,
  },
});

// 6. Bob signs up and applies; a second application is refused with a typed error
await anonymous.post("/users", { body: { email: "bob@example.com", password, firstName: "Bob" } });
const bobSession = await anonymous.post("/auth/token", {
  body: { email: "bob@example.com", password },
});
const bob = createClient({ baseUrl, token: bobSession.token });
const application = await bob.post("/tasks/{id}/applications", {
  params: { path: { id: task.id } },
  body: { message: "I can lift", price: 60 },
});
try {
  await bob.post("/tasks/{id}/applications", {
    params: { path: { id: task.id } },
    body: { message: "Again" },
  });
} catch (error) {
  if (!(error instanceof ApiError)) throw error;
  console.log("second application:", error.status, error.code);
}

// 7. Ada reads every application (all pages) and accepts Bob's: one spot left
for await (
  const each of ada.paginate("/tasks/{id}/applications", { params: { path: { id: task.id } } })
) {
  console.log("application from", each.applicantId, each.status);
}
await ada.patch("/applications/{id}", {
  params: { path: { id: application.id } },
  body: { status: "accepted" },
});
const after = await ada.get("/tasks/{id}", { params: { path: { id: task.id } } });
console.log("accepted", after.acceptedCount, "spots left", after.spotsLeft);

// 8. the map: published tasks near Paris, nearest first, as JSON items and as GeoJSON
const near = { latitude: 48.86, longitude: 2.35, radiusKm: 10, sort: "distance" } as const;
const items = await ada.explore(near);
console.log("nearest:", items[0].title, items[0].distanceKm, "km");
const map = await ada.exploreGeoJson(near);
console.log(
  "map:",
  map.type,
  map.features.length,
  "feature(s) at",
  map.features[0].geometry.coordinates,
);

// 9. Bob writes in his application's conversation; Ada sees it unread, replies, marks it read
const question = await bob.post("/applications/{id}/messages", {
  params: { path: { id: application.id } },
  body: { body: "Which door is it?" },
});
const adaSession = createClient({ baseUrl, token });
const [talk] = await adaSession.get("/conversations");
console.log("conversation with", talk.counterpart.firstName, "unread", talk.unread);
await adaSession.post("/applications/{id}/messages", {
  params: { path: { id: application.id } },
  body: { body: "The blue one" },
});
const read = await adaSession.put("/applications/{id}/read", {
  params: { path: { id: application.id } },
  body: { upTo: question.id },
});
console.log("unread after reading", read.unread);

// 10. Ada cancels the task: Bob's application is cancelled with it; he still reads its history
const cancelled = await ada.post("/tasks/{id}/cancel", {
  params: { path: { id: task.id } },
  body: { reason: "found_someone_else", note: "A removal firm" },
});
console.log("task", cancelled.status, cancelled.cancellation?.reason);
const [mine] = await bob.get("/applications/me");
console.log("Bob's application", mine.status);
const timeline = await bob.get("/tasks/{id}/history", { params: { path: { id: task.id } } });
console.log("history:", timeline.map((entry) => entry.type).join(", "));
