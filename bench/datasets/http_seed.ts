/**
 * Seeds the store that bench/http/http.ts serves: an account, an API key whitelisted for 127.0.0.1,
 * and tasks written by the service's own code (kv/tasks/tasks.ts createTask, the path POST /tasks
 * takes).
 */
import { startJobs } from "../../kv/jobs/start.ts";
import { checkIndexLayout } from "../../kv/tasks/index_layout.ts";
import { parseSettings } from "../../domain/settings.ts";
import { newTask, TaskCreate } from "../../domain/tasks/task.ts";
import { orderKey } from "../../kv/order_key.ts";
import { createTask } from "../../kv/tasks/tasks.ts";
import { createApp } from "../../routes/app.ts";
import { createDeps } from "../../routes/router/deps.ts";
import { taskBody } from "./task_body.ts";

export interface BenchStore {
  userId: string;
  apiKey: string;
  taskIds: string[];
}

const CITIES = [
  { name: "Paris", countryCode: "FR", coordinates: [2.3522, 48.8566], currency: "EUR" },
  { name: "Lyon", countryCode: "FR", coordinates: [4.8357, 45.764], currency: "EUR" },
  { name: "Berlin", countryCode: "DE", coordinates: [13.405, 52.52], currency: "EUR" },
  { name: "London", countryCode: "GB", coordinates: [-0.1276, 51.5072], currency: "GBP" },
  { name: "Osaka", countryCode: "JP", coordinates: [135.5023, 34.6937], currency: "JPY" },
];

/** The create body of the i-th seeded task (also what the POST scenarios send). */
export function benchTaskBody(i: number): Record<string, unknown> {
  const city = CITIES[i % CITIES.length];
  return taskBody({
    title: `Task ${i}: ${i % 3 === 0 ? "repaint the hallway" : "assemble a bookcase"}`,
    budget: i % 10 === 0 ? 0 : 20 + (i % 400),
    currency: city.currency,
    location: {
      type: "city",
      name: city.name,
      countryCode: city.countryCode,
      coordinates: city.coordinates,
    },
  });
}

async function call(app: ReturnType<typeof createApp>, path: string, init: RequestInit) {
  const res = await app.request(path, init, {
    remoteAddr: { hostname: "127.0.0.1", port: 0, transport: "tcp" },
  });
  const body = await res.json();
  if (res.status >= 300) throw new Error(`seeding ${path} failed: ${JSON.stringify(body)}`);
  return body;
}

/** Fills a new KV file at `path` with one account, its key and `tasks` tasks. */
export async function seedStore(path: string, tasks: number): Promise<BenchStore> {
  const kv = await Deno.openKv(path);
  try {
    // Marks the new store as of the current index layout, as the service does on first start.
    await checkIndexLayout(kv);
    const settings = parseSettings({
      KV_PATH: path,
      PASSWORD_HASH_ITERATIONS: "1000",
      LOG_LEVEL: "silent",
    });
    const deps = await createDeps(kv, settings);
    const app = createApp(deps);
    const json = { "Content-Type": "application/json" };
    const credentials = { email: "bench@example.com", password: "bench password 2026" };
    const user = await call(app, "/v1/users", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ ...credentials, firstName: "Bench" }),
    });
    const { token } = await call(app, "/v1/auth/token", {
      method: "POST",
      headers: json,
      body: JSON.stringify(credentials),
    });
    const key = await call(app, "/api/v1/keys", {
      method: "POST",
      headers: { ...json, Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        name: "bench",
        scopes: ["tasks:read", "tasks:write"],
        ipWhitelist: ["127.0.0.1", "::1"],
        expiresInDays: 30,
      }),
    });
    const taskIds: string[] = [];
    const start = Date.now() - tasks * 1000;
    for (let i = 0; i < tasks; i++) {
      const at = start + i * 1000;
      const id = crypto.randomUUID();
      const input = TaskCreate.parse(benchTaskBody(i));
      const record = newTask(
        input,
        { id, userId: user.id, orderKey: orderKey(at, id) },
        new Date(at).toISOString(),
      );
      await createTask(kv, record);
      taskIds.push(id);
    }
    await deps.lastUsed.flush();
    // The creates' own jobs (alert matching) run here, as a live service would have run them by
    // then: otherwise every server starts on a backlog that the GET rows would pay for.
    const jobs = startJobs({ kv, now: () => Date.now() });
    await jobs.drain();
    await jobs.stop();
    return { userId: user.id, apiKey: key.key, taskIds };
  } finally {
    kv.close();
  }
}
