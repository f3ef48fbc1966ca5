/** The dependencies every route receives and the Hono environment type they share. */
import type { Logger } from "../../io/log.ts";
import type { Principal } from "../../domain/auth.ts";
import type { Settings } from "../../domain/settings.ts";
import type { ApiKeyCache } from "../../kv/api_keys/api_key_cache.ts";
import type { UserCache } from "../../kv/users/user_cache.ts";
import type { RatingCache } from "../../kv/reviews/ratings.ts";
import type { LastUsedBuffer } from "../../kv/api_keys/last_used.ts";
import type { SharedRateLimiter } from "../../kv/rate_limit/rate_limit.ts";
import type { UsageCounter } from "../../kv/api_keys/usage_counter.ts";
import type { LiveHub } from "../../kv/live/hub.ts";

/** What the app is built from: injected so tests can pass a fresh in-memory store and a clock. */
export interface Deps {
  kv: Deno.Kv;
  settings: Settings;
  log: Logger;
  /** Secret for signing session tokens (HS256). */
  jwtSecret: string;
  /** Milliseconds since the epoch; injectable so time-dependent rules test without sleeps. */
  now: () => number;
  /** API keys' last-used times, written in batches. */
  lastUsed: LastUsedBuffer;
  /** API-key records for authentication, cached; cleared across instances by a polled marker. */
  apiKeyCache: ApiKeyCache;
  /** Live user records (task authors), cached; cleared across instances by a polled marker. */
  userCache: UserCache;
  /** Users' ratings (task authors'), cached; cleared across instances by a polled marker. */
  ratingCache: RatingCache;
  /** Request budgets shared through KV; leased and spent in memory, synced by a background job. */
  rateLimiter: SharedRateLimiter;
  /** API keys' request counts by hour, day and outcome, flushed with the rate limiter's. */
  usage: UsageCounter;
  /** This process's live event streams and the feeds they share (kv/live/hub.ts). */
  live: LiveHub;
}

/** The connection info Deno.serve hands to `fetch`, which Hono exposes as `c.env`. */
export interface ServeBindings {
  remoteAddr?: { hostname: string; port?: number; transport?: string };
}

export interface AppEnv {
  Bindings: ServeBindings;
  Variables: {
    deps: Deps;
    requestId: string;
    /** The caller, once the auth middleware has run; null for an anonymous caller. */
    principal: Principal | null;
    /** The API key that authenticated the request (counted in its usage), whatever follows. */
    keyInUse: string | null;
    /** The client address (TCP peer, or X-Forwarded-For behind a trusted proxy). */
    clientIp: string;
    /**
     * Settles when a request run ahead of its grant is counted (rejects with its 429):
     * a password hash waits for it.
     */
    admitted?: Promise<void>;
    /**
     * Headers every answer to the request carries (its id, its budget's), put on the finished
     * answer by the request lifecycle (routes/http/middleware.ts), whichever answer that is.
     */
    answerHeaders?: Record<string, string>;
    /** The last body built through `c.body` or `c.json` (routes/http/compress.ts), and its length. */
    builtBody?: { res: Response; length: number };
  };
}
