/** Assembles the app's dependencies from an open KV store and parsed settings. */
import { createLogger } from "../domain/log.ts";
import type { Settings } from "../domain/settings.ts";
import { loadJwtSecret } from "../kv/config.ts";
import { newApiKeyCache } from "../kv/api_key_cache.ts";
import { newUserCache } from "../kv/user_cache.ts";
import { LastUsedBuffer } from "../kv/last_used.ts";
import { SharedRateLimiter } from "../kv/rate_limit.ts";
import { UsageCounter } from "../kv/usage_counter.ts";
import type { Deps } from "./env.ts";

export async function createDeps(
  kv: Deno.Kv,
  settings: Settings,
  overrides: Partial<Deps> = {},
): Promise<Deps> {
  const deps: Deps = {
    kv,
    settings,
    log: createLogger(settings.LOG_LEVEL),
    jwtSecret: settings.JWT_SECRET ?? await loadJwtSecret(kv),
    now: Date.now,
    lastUsed: new LastUsedBuffer(kv),
    // Reads deps.now at each call, so a clock swapped in later drives the limiter too.
    rateLimiter: new SharedRateLimiter(kv, () => deps.now()),
    apiKeyCache: newApiKeyCache(kv, () => deps.now()),
    userCache: newUserCache(kv, () => deps.now()),
    usage: new UsageCounter(
      kv,
      (error) => deps.log.error("could not prune API-key usage", { error: error?.message }),
    ),
    ...overrides,
  };
  deps.rateLimiter.carry(deps.usage);
  return deps;
}
