/**
 * `deno task seed`: creates a demo account (and a few neighbours), prints one API key for it
 * once, and posts a few hundred tasks around real cities through the API itself, so explore
 * has something to show at once. Uses the same store as the service (KV_PATH or ./data).
 */
import { parseSettings } from "../domain/settings.ts";
import { type Scope, SCOPES } from "../domain/auth.ts";
import { createApp } from "../routes/app.ts";
import { createDeps } from "../routes/router/deps.ts";
import type { Deps } from "../routes/router/env.ts";
import { checkIndexLayout } from "../kv/tasks/index_layout.ts";
import { openStore } from "../kv/store/open_store.ts";
import { CITIES, type City, NEIGHBOURS, PER_EURO, TEMPLATES } from "./seed_data.ts";
import { seededRandom } from "./seeded_random.ts";

const DAY_MS = 86_400_000;
const COUNTRY_NAMES = new Intl.DisplayNames(["en"], { type: "region" });
const ALL_SCOPES: Scope[] = [...SCOPES];

export interface SeedOptions {
  /** How many tasks to post in all (default 300). */
  tasks?: number;
  email?: string;
  password?: string;
  /** Seed of the pseudo-random choices, so a run can be repeated exactly. */
  seed?: number;
}

export interface SeedResult {
  email: string;
  password: string;
  userId: string;
  apiKey: string;
  tasksCreated: number;
}

type App = ReturnType<typeof createApp>;

async function call(app: App, path: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) headers.set("Content-Type", "application/json");
  const res = await app.request(path, {
    ...rest,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
  }, { remoteAddr: { hostname: "127.0.0.1", port: 0, transport: "tcp" } });
  const body = await res.json();
  return { status: res.status, body };
}

/** Signs up (or, when the account exists, logs in) and returns a session token. */
async function account(
  app: App,
  profile: { email: string; password: string; firstName: string; lastName: string },
) {
  const created = await call(app, "/v1/users", { method: "POST", json: profile });
  if (created.status !== 201 && created.body.code !== "EMAIL_TAKEN") {
    throw new Error(`sign-up of ${profile.email} failed: ${JSON.stringify(created.body)}`);
  }
  const login = await call(app, "/v1/auth/token", {
    method: "POST",
    json: { email: profile.email, password: profile.password },
  });
  if (login.status !== 200) {
    throw new Error(
      `${profile.email} exists with another password; seed with --email=<another address>`,
    );
  }
  const me = await call(app, "/v1/users/me", {
    headers: { Authorization: `Bearer ${login.body.token}` },
  });
  return { token: login.body.token as string, userId: me.body.id as string };
}

async function newKey(app: App, token: string, name: string) {
  const res = await call(app, "/api/v1/keys", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
    json: { name, scopes: ALL_SCOPES, expiresInDays: 90 },
  });
  if (res.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(res.body)}`);
  return res.body.key as string;
}

/** A point `sigmaKm` around a city (gaussian), as [longitude, latitude]. */
function near(city: City, sigmaKm: number, rand: () => number): [number, number] {
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const [lon, lat] = city.coordinates;
  const dLat = (gauss() * sigmaKm) / 111.32;
  const dLon = (gauss() * sigmaKm) / (111.32 * Math.cos((lat * Math.PI) / 180));
  const round = (n: number) => Math.round(n * 1e5) / 1e5;
  return [round(lon + dLon), round(Math.max(-90, Math.min(90, lat + dLat)))];
}

function taskBody(rand: () => number, now: number) {
  const city = CITIES[Math.floor(rand() * CITIES.length)];
  const template = TEMPLATES[Math.floor(rand() * TEMPLATES.length)];
  const [low, high] = template.budget;
  const euros = low + rand() * (high - low);
  const budget = Math.round(euros * PER_EURO[city.currency]);
  const kind = rand();
  const location = kind < 0.75
    ? {
      type: "city",
      name: city.name,
      countryCode: city.countryCode,
      coordinates: near(city, 6, rand),
    }
    : kind < 0.92
    ? {
      type: "radius",
      name: `${city.name} and around`,
      countryCode: city.countryCode,
      coordinates: near(city, 3, rand),
      radiusKm: [5, 10, 25, 50][Math.floor(rand() * 4)],
    }
    : kind < 0.97
    ? {
      type: "country",
      name: COUNTRY_NAMES.of(city.countryCode) ?? city.countryCode,
      countryCode: city.countryCode,
      coordinates: city.coordinates,
    }
    : { type: "world", name: "Remote", coordinates: [0, 0] };
  const dueInDays = 3 + Math.floor(rand() * 60);
  return {
    title: template.title,
    description: template.description,
    budget,
    currency: city.currency,
    location,
    requirement: template.requirement,
    ...(rand() < 0.7
      ? { dueDate: new Date(now + dueInDays * DAY_MS).toISOString().slice(0, 10) }
      : {}),
    maxPeople: template.maxPeople ?? 1,
  };
}

/**
 * Seeds through the app built on `deps`. Tasks are dated over the past two weeks (the clock in
 * `deps.now` is moved while they are posted), so newest-first listings look lived in.
 */
export async function seed(
  deps: Deps,
  setClock: (ms: number | null) => void,
  options: SeedOptions = {},
): Promise<SeedResult> {
  const app = createApp(deps);
  const rand = seededRandom(options.seed ?? 20261121);
  const email = options.email ?? "demo@example.com";
  const password = options.password ?? "demo password 2026";
  const demo = await account(app, { email, password, firstName: "Demo", lastName: "User" });
  const posters = [{ ...demo, key: "" }];
  for (const [i, n] of NEIGHBOURS.entries()) {
    const neighbour = await account(app, {
      email: `neighbour${i + 1}@example.com`,
      password: `neighbour password ${i + 1}`,
      ...n,
    });
    posters.push({ ...neighbour, key: "" });
  }
  for (const poster of posters) poster.key = await newKey(app, poster.token, "seed");

  const total = options.tasks ?? 300;
  const end = Date.now();
  const start = end - 14 * DAY_MS;
  let created = 0;
  try {
    for (let i = 0; i < total; i++) {
      setClock(start + Math.floor(((end - start) * i) / total));
      // The demo user posts one task in five; the neighbours the rest.
      const poster = i % 5 === 0 ? posters[0] : posters[1 + (i % (posters.length - 1))];
      const res = await call(app, "/api/v1/tasks", {
        method: "POST",
        headers: { "X-API-Key": poster.key },
        json: taskBody(rand, end),
      });
      if (res.status !== 201) throw new Error(`task ${i} failed: ${JSON.stringify(res.body)}`);
      created++;
    }
  } finally {
    setClock(null);
  }
  // The seeding keys served their purpose; the demo user gets one fresh key, shown once.
  for (const poster of posters) {
    const keys = await call(app, "/api/v1/keys", {
      headers: { Authorization: `Bearer ${poster.token}` },
    });
    for (const key of keys.body as { id: string; name: string }[]) {
      if (key.name !== "seed") continue;
      await call(app, `/api/v1/keys/${key.id}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${poster.token}` },
      });
    }
  }
  const apiKey = await newKey(app, demo.token, "demo");
  await deps.lastUsed.flush();
  return { email, password, userId: demo.userId, apiKey, tasksCreated: created };
}

function flag(name: string): string | undefined {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3);
}

if (import.meta.main) {
  // Quiet by default: one log line per seeding request would bury the key.
  const settings = parseSettings({ LOG_LEVEL: "warn", ...Deno.env.toObject() });
  const kv = await openStore(settings.KV_PATH);
  if (!(await checkIndexLayout(kv)).current) {
    console.error("This store's task indexes are of an older layout: run `deno task reindex` too.");
  }
  let clock: number | null = null;
  const deps = await createDeps(kv, settings, { now: () => clock ?? Date.now() });
  try {
    const count = flag("tasks");
    const result = await seed(deps, (ms) => clock = ms, {
      tasks: count ? Number(count) : undefined,
      email: flag("email"),
    });
    console.log(`Seeded ${result.tasksCreated} tasks in ${CITIES.length} cities.

Demo account: ${result.email} / ${result.password}
API key (shown this once; it has every scope, expires in 90 days):

  ${result.apiKey}

Try, with the service running (deno task dev):
  curl -s 'localhost:${settings.PORT}/api/v1/tasks/explore?latitude=48.8566&longitude=2.3522&radiusKm=20'
  curl -s 'localhost:${settings.PORT}/api/v1/tasks/explore?search=plomb'
  curl -s localhost:${settings.PORT}/api/v1/tasks -H 'X-API-Key: ${result.apiKey}'
  open http://localhost:${settings.PORT}/docs`);
  } finally {
    kv.close();
  }
}
