/**
 * Task endpoints in-process (app.request, :memory: KV): create, one task, a cursor page, a
 * status page deep in the listing, and the full streamed listing of one user's 2,000 tasks.
 * No floor runs beside them: compare with the figures this file wrote at earlier commits.
 */
import { taskBody } from "../datasets/task_body.ts";
import { bearer, benchService, signUp } from "../lib/service.ts";

// Past the default 1,000 an hour every request would measure a 429 instead of the endpoint.
const svc = await benchService({
  settings: { RATE_LIMIT_PER_HOUR: 1_000_000_000, ANON_RATE_LIMIT_PER_HOUR: 1_000_000_000 },
});
const user = await signUp(svc);
const auth = bearer(user.token);
const ids: string[] = [];
for (let i = 0; i < 2_000; i++) {
  const res = await svc.request("/api/v1/tasks", {
    method: "POST",
    headers: auth,
    json: taskBody({ title: `Task ${i} ${i % 7 === 0 ? "plomberie" : "jardin"}` }),
  });
  if (res.status !== 201) throw new Error(`seeding task ${i} answered ${res.status}`);
  ids.push((await res.json()).id);
}

async function drain(res: Response) {
  await res.arrayBuffer();
}

Deno.bench("POST /tasks", async () => {
  await drain(
    await svc.request("/api/v1/tasks", { method: "POST", headers: auth, json: taskBody() }),
  );
});

Deno.bench("POST /tasks with Idempotency-Key", async () => {
  await drain(
    await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: { ...auth, "Idempotency-Key": crypto.randomUUID() },
      json: taskBody(),
    }),
  );
});

Deno.bench("GET /tasks/:id (anonymous)", async () => {
  await drain(await svc.request(`/api/v1/tasks/${ids[1_000]}`));
});

Deno.bench("GET /tasks?limit=20", async () => {
  await drain(await svc.request("/api/v1/tasks?limit=20", { headers: auth }));
});

Deno.bench("GET /tasks?limit=20&search=plomb (1 task in 7 matches)", async () => {
  await drain(await svc.request("/api/v1/tasks?limit=20&search=plomb", { headers: auth }));
});

Deno.bench("GET /tasks/me/status?page=1&limit=20", async () => {
  await drain(await svc.request("/api/v1/tasks/me/status?page=1&limit=20", { headers: auth }));
});

Deno.bench("GET /tasks/me/status?page=50&limit=20 (skips 980)", async () => {
  await drain(await svc.request("/api/v1/tasks/me/status?page=50&limit=20", { headers: auth }));
});

Deno.bench("GET /tasks/me/created (2,000+ tasks streamed)", async () => {
  await drain(await svc.request("/api/v1/tasks/me/created", { headers: auth }));
});

Deno.bench("PATCH /tasks/:id", async () => {
  const id = ids[Math.floor(Math.random() * ids.length)];
  await drain(
    await svc.request(`/api/v1/tasks/${id}`, {
      method: "PATCH",
      headers: auth,
      json: { budget: Math.floor(Math.random() * 100) },
    }),
  );
});
