/** Assembles the app's dependencies from an open KV store and parsed settings. */
import { Timers } from "../../io/timers.ts";
import { createLogger } from "../../io/log.ts";
import type { Settings } from "../../domain/settings.ts";
import { loadJwtSecret } from "../../kv/config.ts";
import { newApiKeyCache } from "../../kv/api_keys/api_key_cache.ts";
import { newUserCache } from "../../kv/users/user_cache.ts";
import { newRatingCache } from "../../kv/reviews/ratings.ts";
import { FLUSH_INTERVAL_MS, LastUsedBuffer } from "../../kv/api_keys/last_used.ts";
import { SharedRateLimiter } from "../../kv/rate_limit/rate_limit.ts";
import { SYNC_INTERVAL_MS } from "../../kv/rate_limit/rate_limit_rules.ts";
import { POLL_INTERVAL_MS, pollTogether } from "../../kv/polled_cache.ts";
import { HOLD_MS, UsageCounter } from "../../kv/api_keys/usage_counter.ts";
import { noteStorageFull } from "../../kv/store/storage_writes.ts";
import type { Deps } from "./env.ts";
import { requestPolicies } from "../http/rate_limit.ts";
import { LiveHub, signalModeFor } from "../../kv/live/hub.ts";

export async function createDeps(
  kv: Deno.Kv,
  settings: Settings,
  overrides: Partial<Deps> = {},
): Promise<Deps> {
  const deps: Deps = {
    kv,
    settings,
    log: createLogger(settings.LOG_LEVEL),
    jwtSecret: settings.JWT_SECRET ?? "",
    now: Date.now,
    lastUsed: new LastUsedBuffer(kv),
    // Reads deps.now at each call, so a clock swapped in later drives the limiter too.
    rateLimiter: new SharedRateLimiter(kv, () => deps.now()),
    // A cold key's digest index names its user and id: the user and the key's rate-limit window
    // are read beside the key's record, not after it (docs/round-trips.md).
    apiKeyCache: newApiKeyCache(kv, () => deps.now(), (ref) => {
      deps.userCache.warm(ref.userId);
      // A key's own tasks show its user's rating: read beside the user, not after the task.
      deps.ratingCache.warm(ref.userId);
      deps.rateLimiter.prefetch(requestPolicies(deps.settings).apiKey, ref.keyId);
    }),
    userCache: newUserCache(kv, () => deps.now()),
    ratingCache: newRatingCache(kv, () => deps.now()),
    usage: new UsageCounter(
      kv,
      () => deps.now(),
      (error) => deps.log.error("could not prune API-key usage", { error: error?.message }),
    ),
    live: new LiveHub(kv, {
      mode: signalModeFor(kv, settings.KV_PATH),
      now: () => deps.now(),
      onError: (what, error) =>
        deps.log.error(`${what} failed`, { error: (error as Error)?.message }),
    }),
    ...overrides,
  };
  deps.rateLimiter.carry(deps.usage);
  // The start-up reads in one round trip: the session secret, and the caches' change markers,
  // so that an instance's first requests need not poll them before their own reads.
  const [jwtSecret] = await Promise.all([
    overrides.jwtSecret ?? settings.JWT_SECRET ?? loadJwtSecret(kv),
    pollTogether(kv, [deps.apiKeyCache, deps.userCache, deps.ratingCache]),
  ]);
  deps.jwtSecret = jwtSecret;
  return deps;
}

/**
 * The periodic work that keeps an instance's deps true across instances: rate-limit counters
 * shared, key and user caches polled, last-use times written. Paused while the instance is idle.
 */
export function instanceTimers(deps: Deps): Timers {
  const background: Timers = new Timers({
    idleAfterMs: deps.settings.IDLE_AFTER_SECONDS * 1000,
    now: () => deps.now(),
    onError: (job, error) => {
      if (noteStorageFull(deps.log, error, { job })) return;
      deps.log.error(`background job failed: ${job}`, { error: error?.message });
    },
    onIdle: (idle) => deps.log.debug(idle ? "idle: background paused" : "background resumed"),
  })
    // Before the sync: when the jobs pause or stop, held usage counts ride on its last flush.
    .add({
      name: "usage release",
      everyMs: HOLD_MS,
      run: () => Promise.resolve(deps.usage.release()),
      flushes: true,
    })
    .add({
      name: "rate-limit sync",
      everyMs: SYNC_INTERVAL_MS,
      // Paused or stopping: every lease goes back, as the instance may be frozen or gone next.
      run: () => deps.rateLimiter.sync(background.idle),
      flushes: true,
    })
    .add({
      name: "API-key, user and rating changes poll",
      everyMs: POLL_INTERVAL_MS,
      run: () => pollTogether(deps.kv, [deps.apiKeyCache, deps.userCache, deps.ratingCache]),
    })
    .add({
      name: "last-use flush",
      everyMs: FLUSH_INTERVAL_MS,
      run: () => deps.lastUsed.flush(),
      flushes: true,
    });
  return background;
}
