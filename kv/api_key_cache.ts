/**
 * API-key records cached in memory for the authentication path, so a key in use costs neither a
 * KV read nor a SHA-256 per request. Every change that matters to authentication (patch, regenerate, revoke) also
 * rewrites one global change marker; each instance polls that marker and drops its whole cache
 * when it moves, so a change on any instance reaches every instance within a poll.
 */
import { type ApiKeyRecord, keyDigest } from "../domain/api_key.ts";
import { findApiKeyByDigest } from "./api_keys.ts";
import { apiKeys } from "./keys.ts";

/** How often a running cache polls the change marker. */
export const POLL_INTERVAL_MS = 250;
// A lookup first polls itself when the last poll is older than this (a stalled timer, or no
// timer at all as in tests): a change is never trusted away for longer.
const MAX_POLL_AGE_MS = 1_000;
// A safety net only: the marker is what keeps entries true.
const ENTRY_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  record: ApiKeyRecord;
  at: number;
}

export class ApiKeyCache {
  #entries = new Map<string, Entry>();
  /** The marker's versionstamp at the last poll; undefined before the first. */
  #seen: string | null | undefined = undefined;
  #polledAt = -Infinity;
  #polling: Promise<void> | null = null;
  /** Bumped on every drop, so a read that raced a drop is not cached. */
  #generation = 0;

  constructor(private readonly kv: Deno.Kv, private readonly now: () => number) {}

  /**
   * The record a presented (well-formed) key value resolves to, revoked or not, or null when
   * unknown. Entries are keyed by the value itself: hashing it was the largest cost of a cached
   * request. Values stay in this process's memory only, as the request headers that carry them.
   */
  async find(value: string): Promise<ApiKeyRecord | null> {
    const now = this.now();
    if (now - this.#polledAt > MAX_POLL_AGE_MS) await this.poll();
    const hit = this.#entries.get(value);
    if (hit && now - hit.at <= ENTRY_TTL_MS) return hit.record;
    const generation = this.#generation;
    const record = await findApiKeyByDigest(this.kv, await keyDigest(value));
    // Unknown values are not cached: made-up keys must not crowd out real ones.
    if (record && generation === this.#generation) {
      this.#entries.delete(value);
      if (this.#entries.size >= MAX_ENTRIES) {
        this.#entries.delete(this.#entries.keys().next().value!); // the oldest
      }
      this.#entries.set(value, { record, at: now });
    }
    return record;
  }

  /** Drops every cached record: called at once by the instance that changed a key. */
  clear() {
    this.#generation++;
    this.#entries.clear();
  }

  /** Reads the change marker; drops the cache when another change was committed since. */
  poll(): Promise<void> {
    this.#polling ??= (async () => {
      const startedAt = this.now();
      try {
        const marker = await this.kv.get(apiKeys.changed());
        if (this.#seen !== undefined && marker.versionstamp !== this.#seen) this.clear();
        this.#seen = marker.versionstamp;
        this.#polledAt = startedAt;
      } finally {
        this.#polling = null;
      }
    })();
    return this.#polling;
  }

  /** Polls every `intervalMs` until the returned function is called. */
  run(intervalMs: number, onError: (error: Error) => void): () => void {
    const timer = setInterval(() => this.poll().catch(onError), intervalMs);
    return () => clearInterval(timer);
  }

  /** Cached records, for tests. */
  get size(): number {
    return this.#entries.size;
  }
}
