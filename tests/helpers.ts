/** Shared test fixtures: a fresh app on an in-memory KV, and shortcuts to sign up and get keys. */
import { testSettings } from "./settings_fixtures.ts";
import { deliveryPolicy, type SettingsInput } from "../domain/settings.ts";
import { startJobs } from "../kv/jobs/start.ts";
import { createApp } from "../routes/app.ts";
import { createDeps } from "../routes/router/deps.ts";
import type { Deps } from "../routes/router/env.ts";
import type { Scope } from "../domain/auth.ts";
import { limitGuard } from "../kv/store/limits.ts";

export interface TestContext {
  kv: Deno.Kv;
  deps: Deps;
  app: ReturnType<typeof createApp>;
  /** Sends a request as if from `ip` (the TCP peer); JSON bodies are serialized. */
  request(path: string, init?: TestRequestInit): Promise<Response>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface TestRequestInit extends Omit<RequestInit, "body"> {
  json?: unknown;
  body?: BodyInit;
  ip?: string;
}

/** A store for a test that drives kv/ directly, held to the same limits as setup's stores. */
export async function openTestKv(path = ":memory:"): Promise<Deno.Kv> {
  return limitGuard(await Deno.openKv(path));
}

/**
 * Where `request` goes instead of the app in-process: a live service (its settings are its own),
 * for the third-party validator run.
 */
const REMOTE = Deno.permissions.querySync({ name: "env", variable: "TEST_SERVICE_URL" }).state ===
    "granted"
  ? Deno.env.get("TEST_SERVICE_URL")
  : undefined;

/** A fresh service on `:memory:` KV; use with `await using`. */
export async function setup(
  options: { settings?: Partial<SettingsInput>; deps?: Partial<Deps>; kv?: Deno.Kv } = {},
): Promise<TestContext> {
  // Every atomic of every test is held to the strictest backend's limits (denokv's 10 checks).
  const kv = limitGuard(options.kv ?? await Deno.openKv(":memory:"));
  const deps = await createDeps(kv, testSettings(options.settings), options.deps);
  const app = createApp(deps);
  return {
    kv,
    deps,
    app,
    request(path, init = {}) {
      const { json, ip = "203.0.113.10", ...rest } = init;
      const headers = new Headers(rest.headers);
      let body = rest.body;
      if (json !== undefined) {
        body = JSON.stringify(json);
        if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
      }
      // tests/processes/prism_proxy_test.ts replays a test file's requests against a live service.
      if (REMOTE) return fetch(new URL(path, REMOTE), { ...rest, headers, body });
      return Promise.resolve(
        app.request(path, { ...rest, headers, body }, {
          remoteAddr: { hostname: ip, port: 40000, transport: "tcp" },
        }),
      );
    },
    async [Symbol.asyncDispose]() {
      await deps.live.close();
      await deps.lastUsed.flush();
      if (!options.kv) kv.close();
    },
  };
}

let userCounter = 0;

/** Signs up a fresh user and logs in; returns the user's id, email and session token. */
export async function signUp(
  t: TestContext,
  profile: { firstName?: string; email?: string; password?: string } = {},
) {
  const email = profile.email ?? `user${++userCounter}-${crypto.randomUUID()}@example.com`;
  const password = profile.password ?? "correct horse battery";
  const created = await t.request("/v1/users", {
    method: "POST",
    json: { email, password, firstName: profile.firstName ?? "Test" },
  });
  if (created.status !== 201) throw new Error(`sign-up failed: ${await created.text()}`);
  const user = await created.json();
  const login = await t.request("/v1/auth/token", { method: "POST", json: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${await login.text()}`);
  const { token } = await login.json();
  return { id: user.id as string, email, password, token: token as string };
}

/** Creates an API key for a session; returns the key's value and metadata. */
export async function createKey(
  t: TestContext,
  token: string,
  body: { scopes?: Scope[]; name?: string; ipWhitelist?: string[]; expiresInDays?: number } = {},
) {
  const res = await t.request("/api/v1/keys", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
    json: {
      name: body.name ?? "test key",
      scopes: body.scopes ?? ["tasks:read", "tasks:write", "profile:read"],
      expiresInDays: body.expiresInDays ?? 30,
      ...(body.ipWhitelist ? { ipWhitelist: body.ipWhitelist } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`key creation failed: ${await res.text()}`);
  const key = await res.json();
  return { id: key.id as string, value: key.key as string, metadata: key };
}

/** Headers carrying a session token. */
export function bearer(token: string): HeadersInit {
  return { Authorization: `Bearer ${token}` };
}

/** Headers carrying an API key in X-API-Key. */
export function apiKey(value: string): HeadersInit {
  return { "X-API-Key": value };
}

/**
 * `n` services on one temporary KV file, each with its own `Deno.openKv` handle, as separate
 * processes (or Deno Deploy isolates) would be: they share storage and nothing else.
 */
export async function sharedInstances(
  n: number,
  options: { settings?: Partial<SettingsInput>; deps?: Partial<Deps> } = {},
) {
  const path = await Deno.makeTempFile({ suffix: ".sqlite3" });
  const list: TestContext[] = [];
  for (let i = 0; i < n; i++) {
    list.push(await setup({ ...options, kv: await Deno.openKv(path) }));
  }
  return {
    list,
    async [Symbol.asyncDispose]() {
      for (const svc of list) {
        await svc[Symbol.asyncDispose]();
        svc.kv.close();
      }
      await Deno.remove(path);
    },
  };
}

/** What `serveApp` starts beside the app: settings and deps as `setup` takes, and the jobs. */
export interface ServeOptions {
  settings?: Partial<SettingsInput>;
  deps?: Partial<Deps>;
  /** Runs the background jobs (webhook deliveries), stopped with the server. */
  jobs?: boolean;
  /** The store (closed with the server), when a dep built beforehand needs it; else a fresh one. */
  kv?: Deno.Kv;
}

/** The app on a real socket (127.0.0.1) over a fresh in-memory store: what only real HTTP shows. */
export async function serveApp(
  options: ServeOptions = {},
): Promise<{ base: string; deps: Deps } & AsyncDisposable> {
  const kv = options.kv ?? await Deno.openKv(":memory:");
  const settings = testSettings(options.settings);
  const deps = await createDeps(kv, settings, options.deps);
  const jobs = options.jobs
    ? startJobs({ kv, now: deps.now, webhooks: deliveryPolicy(settings) })
    : null;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    createApp(deps).fetch,
  );
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    deps,
    async [Symbol.asyncDispose]() {
      await deps.live.close();
      await server.shutdown();
      await deps.lastUsed.flush();
      await jobs?.stop();
      kv.close();
    },
  };
}
