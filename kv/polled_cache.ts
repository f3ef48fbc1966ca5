/**
 * A read-through cache of KV records for hot request paths, kept true across instances by one
 * global change marker: every change that matters rewrites the marker in the same atomic, each
 * instance polls it and drops its whole cache when it moves, and the instance that made the
 * change drops its cache at once.
 */

/** How often a running cache polls its change marker. */
export const POLL_INTERVAL_MS = 250;
// A lookup first polls itself when the last poll is older than this (a stalled timer, or no
// timer at all as in tests): a change is never trusted away for longer.
const MAX_POLL_AGE_MS = 1_000;
// A safety net only: the marker is what keeps entries true.
const ENTRY_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  at: number;
}

const valueOf = <V>(found: { value: V }) => found.value;

export class PolledCache<V> {
  #entries = new Map<string, Entry<V>>();
  /** The marker's versionstamp at the last poll; undefined before the first. */
  #seen: string | null | undefined = undefined;
  #polledAt = -Infinity;
  #polling: Promise<void> | null = null;
  /** Bumped on every drop, so a read that raced a drop is not cached. */
  #generation = 0;
  /** Loads started by `warm`, shared by the lookups made while they run. */
  #warming = new Map<string, Promise<V | null>>();

  /**
   * @param marker the key every relevant change rewrites
   * @param load reads the record for a cache key from KV; null when there is none (not cached,
   *   so that made-up keys cannot crowd out real ones)
   */
  constructor(
    private readonly kv: Deno.Kv,
    readonly now: () => number,
    readonly marker: Deno.KvKey,
    private readonly load: (key: string) => Promise<V | null>,
  ) {}

  /** The record for `key`, from memory when cached and the marker has not moved. */
  find(key: string): Promise<V | null> {
    const held = this.peek(key);
    // A hit costs one settled promise, not the lookup's two and its answer object.
    return held === undefined ? this.lookup(key).then(valueOf) : Promise.resolve(held);
  }

  /**
   * The record for `key` when memory can answer it now (cached, fresh, the marker polled
   * lately); undefined when only `lookup` can.
   */
  peek(key: string): V | undefined {
    const now = this.now();
    if (now - this.#polledAt > MAX_POLL_AGE_MS) return undefined;
    const hit = this.#entries.get(key);
    return hit && now - hit.at <= ENTRY_TTL_MS ? hit.value : undefined;
  }

  /** `find`, saying whether the record was read from KV by this call (`loaded`). */
  async lookup(key: string): Promise<{ value: V | null; loaded: boolean }> {
    const now = this.now();
    if (now - this.#polledAt > MAX_POLL_AGE_MS) await this.poll();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at <= ENTRY_TTL_MS) return { value: hit.value, loaded: false };
    const warming = this.#warming.get(key);
    return { value: await (warming ?? this.#load(key, now)), loaded: true };
  }

  /**
   * Starts loading `key` ahead of its lookup, beside another read; a lookup meanwhile shares it.
   * Only for records whose freshness a request does not rely on (authors, live users): the
   * shared load may have started before the request did.
   */
  warm(key: string): void {
    const now = this.now();
    const hit = this.#entries.get(key);
    if ((hit && now - hit.at <= ENTRY_TTL_MS) || this.#warming.has(key)) return;
    const loading = this.#load(key, now);
    this.#warming.set(key, loading);
    loading.catch(() => {}).finally(() => this.#warming.delete(key));
  }

  async #load(key: string, now: number): Promise<V | null> {
    const generation = this.#generation;
    const value = await this.load(key);
    if (value !== null && generation === this.#generation) {
      this.#entries.delete(key);
      if (this.#entries.size >= MAX_ENTRIES) {
        this.#entries.delete(this.#entries.keys().next().value!); // the oldest
      }
      this.#entries.set(key, { value, at: now });
    }
    return value;
  }

  /** Replaces one cached record by a newer read of it, or drops it (null). */
  renew(key: string, value: V | null) {
    this.#generation++;
    this.#entries.delete(key);
    if (value !== null) this.#entries.set(key, { value, at: this.now() });
  }

  /** Drops every cached record: called at once by the instance that made a change. */
  clear() {
    this.#generation++;
    this.#entries.clear();
  }

  /**
   * Takes the marker's versionstamp as read at `readAt`: the cache is dropped when it moved since
   * the last poll (another change was committed).
   */
  observe(versionstamp: string | null, readAt: number) {
    if (this.#seen !== undefined && versionstamp !== this.#seen) this.clear();
    this.#seen = versionstamp;
    this.#polledAt = Math.max(this.#polledAt, readAt);
  }

  /** Reads the change marker; drops the cache when another change was committed since. */
  poll(): Promise<void> {
    this.#polling ??= (async () => {
      const startedAt = this.now();
      try {
        this.observe((await this.kv.get(this.marker)).versionstamp, startedAt);
      } finally {
        this.#polling = null;
      }
    })();
    return this.#polling;
  }

  /** Cached records, for tests. */
  get size(): number {
    return this.#entries.size;
  }
}

/** What `pollTogether` needs of a cache, whatever it holds. */
interface Polled {
  readonly marker: Deno.KvKey;
  now(): number;
  observe(versionstamp: string | null, readAt: number): void;
}

/**
 * Polls the markers of several caches in one read: the background job every serving instance
 * runs, so one read a tick rather than one per cache.
 */
export async function pollTogether(kv: Deno.Kv, caches: readonly Polled[]): Promise<void> {
  if (caches.length === 0) return;
  const readAt = caches[0].now();
  const markers = await kv.getMany(caches.map((cache) => cache.marker));
  caches.forEach((cache, i) => cache.observe(markers[i].versionstamp, readAt));
}
