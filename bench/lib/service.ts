/**
 * The service in process for the benches: settings of their own (fast password hashing, a fixed
 * secret, silent logs, limits out of the way), the app on a given store, and a signed-up account.
 * The benches keep their own so that a change to the tests' fixtures never moves a figure.
 */
import { Settings, type SettingsInput } from "../../domain/settings.ts";
import { createApp } from "../../routes/app.ts";
import { createDeps } from "../../routes/router/deps.ts";
import type { Deps } from "../../routes/router/env.ts";
import { BENCH_SETTINGS } from "./bench_settings.ts";

/** The benches' settings with `overrides`. */
export function benchSettings(overrides: Partial<SettingsInput> = {}): Settings {
  return Settings.parse({ ...BENCH_SETTINGS, ...overrides });
}

/** The service in process on a store; use with `await using`. */
export interface BenchService {
  kv: Deno.Kv;
  deps: Deps;
  /** Sends a request from a fixed public address; `json` is serialized as the body. */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The app on `kv` (a fresh `:memory:` store by default), with `settings` over the benches'. */
export async function benchService(
  options: { kv?: Deno.Kv; settings?: Partial<SettingsInput> } = {},
): Promise<BenchService> {
  const kv = options.kv ?? await Deno.openKv(":memory:");
  const deps = await createDeps(kv, benchSettings(options.settings));
  const app = createApp(deps);
  return {
    kv,
    deps,
    request(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      let body = rest.body;
      if (json !== undefined) {
        body = JSON.stringify(json);
        headers.set("Content-Type", "application/json");
      }
      return Promise.resolve(app.request(path, { ...rest, headers, body }, {
        remoteAddr: { hostname: "203.0.113.10", port: 40000, transport: "tcp" },
      }));
    },
    async [Symbol.asyncDispose]() {
      await deps.lastUsed.flush();
      if (!options.kv) kv.close();
    },
  };
}

/** Signs up a fresh account and logs in: its id and session token. */
export async function signUp(svc: BenchService): Promise<{ id: string; token: string }> {
  const email = `bench-${crypto.randomUUID()}@example.com`;
  const password = "correct horse battery";
  const created = await svc.request("/v1/users", {
    method: "POST",
    json: { email, password, firstName: "Bench" },
  });
  if (created.status !== 201) throw new Error(`sign-up failed: ${await created.text()}`);
  const { id } = await created.json();
  const login = await svc.request("/v1/auth/token", { method: "POST", json: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${await login.text()}`);
  return { id, token: (await login.json()).token };
}

/** Headers carrying a session token. */
export function bearer(token: string): HeadersInit {
  return { Authorization: `Bearer ${token}` };
}
