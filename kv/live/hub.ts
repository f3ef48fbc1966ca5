/**
 * This process's live streams: one feed per account with streams here (shared by them), woken
 * through the store-wide signals (one watch or poll of a few keys per process, kv/live/signal.ts),
 * the renewal of their leases in a few atomics, heartbeats and ends by the clock, and their end
 * at shutdown.
 */
import { isKvConnectUrl } from "../../domain/settings.ts";
import { LEASE_RENEW_MS, POLL_INTERVAL_MS, STREAM_LEASE_MS } from "../../domain/live/live_rules.ts";
import { GETMANY_MAX } from "../store/limits.ts";
import { getEntries } from "../store/get_all.ts";
import { AccountFeed, type FeedListener } from "./feed.ts";
import { shardOf } from "./signal.ts";
import { SignalListener, type SignalMode } from "./signal_listener.ts";
import { type HeldLease, releaseLease, renewLeases } from "./stream_leases.ts";

/** A stream as the hub holds it. */
export interface HubStream extends FeedListener {
  readonly userId: string;
  readonly lease: HeldLease;
  /** Ends the stream (its lease was lost, or the process stops). */
  end(reason: string): void;
  /**
   * Called every TICK_MS with the clock: a stream silent for a while sends a comment, one past
   * its hour or its credential's expiry ends.
   */
  tick(now: number): void;
}

/** How often the hub looks at its streams: the slack of heartbeats and of ends by the clock. */
export const TICK_MS = 1_000;

/**
 * The signal mode for a store: SQLite's watch reports only this process's commits, so a local
 * file (which other workers may share) is polled too; KV Connect and Deno Deploy watch across
 * instances; `:memory:` has no other process. Without `watch` at all, polling alone.
 */
export function signalModeFor(kv: Deno.Kv, kvPath: string | undefined): SignalMode {
  const watch = typeof (kv as { watch?: unknown }).watch === "function";
  const remote = isKvConnectUrl(kvPath) || (!kvPath && Deno.env.get("DENO_DEPLOYMENT_ID"));
  const shared = !remote && kvPath !== ":memory:";
  return { watch, poll: !watch || shared };
}

export interface LiveHubOptions {
  mode: SignalMode;
  now: () => number;
  onError: (what: string, error: unknown) => void;
  /** Between polls of the signals, where they are polled (POLL_INTERVAL_MS). */
  pollIntervalMs?: number;
}

export class LiveHub {
  readonly #feeds = new Map<string, { feed: AccountFeed; holds: number }>();
  /** The feeds of each signal shard. */
  readonly #byShard = new Map<number, Set<AccountFeed>>();
  readonly #streams = new Set<HubStream>();
  readonly #signals: SignalListener;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastRenewal = 0;
  #closed = false;
  readonly #releases = new Set<Promise<void>>();
  #wakes: Promise<void> = Promise.resolve();
  /** Reads made to wake feeds whose shard moved. */
  #wakeReads = 0;
  /** Ticks run: a test waits for them rather than for time. */
  ticks = 0;

  constructor(readonly kv: Deno.Kv, readonly options: LiveHubOptions) {
    this.#signals = new SignalListener(kv, {
      mode: options.mode,
      pollIntervalMs: options.pollIntervalMs ?? POLL_INTERVAL_MS,
      onMoved: (shards) => this.#wake(shards),
      onError: options.onError,
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** How the signals are looked at now (a failed watch turns to polling). */
  get mode(): SignalMode {
    return this.#signals.mode;
  }

  /** Open streams on this process. */
  get streams(): number {
    return this.#streams.size;
  }

  /** Accounts with a feed on this process (a feed goes with its account's last stream here). */
  get accounts(): number {
    return this.#feeds.size;
  }

  /** True while the process watches or polls the signals: only while it has a feed. */
  get listening(): boolean {
    return this.#signals.running;
  }

  /** Reads made by the signals' poll, the wakes and every feed so far (watch answers apart). */
  get feedReads(): number {
    let reads = this.#signals.reads + this.#wakeReads;
    for (const { feed } of this.#feeds.values()) reads += feed.reads;
    return reads;
  }

  /**
   * One poll of the signals now, resolved once the feeds of every moved shard have been handed
   * what they need to deliver (a test drives the poll with it instead of waiting for its timer).
   */
  pollOnce(): Promise<void> {
    return this.#signals.pollOnce();
  }

  /** The account's feed, held until `release` (a stream being opened keeps it alive). */
  hold(userId: string): AccountFeed {
    let held = this.#feeds.get(userId);
    if (!held) {
      held = { feed: new AccountFeed(this.kv, userId, this.options.onError), holds: 0 };
      this.#feeds.set(userId, held);
      const shard = shardOf(userId);
      let feeds = this.#byShard.get(shard);
      if (!feeds) this.#byShard.set(shard, feeds = new Set());
      feeds.add(held.feed);
      if (!this.#closed) this.#signals.start();
    }
    held.holds++;
    return held.feed;
  }

  release(userId: string) {
    const held = this.#feeds.get(userId);
    if (!held) return;
    held.holds--;
    if (held.holds === 0 && held.feed.size === 0) this.#drop(userId, held.feed);
  }

  #drop(userId: string, feed: AccountFeed) {
    feed.close();
    this.#feeds.delete(userId);
    const shard = shardOf(userId);
    const feeds = this.#byShard.get(shard);
    feeds?.delete(feed);
    if (feeds?.size === 0) this.#byShard.delete(shard);
    // No stream left: an idle process reads nothing at all.
    if (this.#feeds.size === 0) this.#signals.stop();
  }

  /** Takes an admitted stream in: its lease is renewed with the others' from now on. */
  add(stream: HubStream) {
    this.#streams.add(stream);
    this.#timer ??= setInterval(() => this.#tick(), TICK_MS);
  }

  /** A stream ended: its slot goes back at once, and its feed when it was the last. */
  remove(stream: HubStream) {
    if (!this.#streams.delete(stream)) return;
    const held = this.#feeds.get(stream.userId);
    if (held) {
      held.feed.leave(stream);
      if (held.holds === 0 && held.feed.size === 0) this.#drop(stream.userId, held.feed);
    }
    const release = releaseLease(this.kv, stream.lease).catch((error) => {
      // Not given back: it runs out with its lease.
      if (!this.#closed) this.options.onError("releasing a stream's lease", error);
    });
    this.#releases.add(release);
    release.finally(() => this.#releases.delete(release));
    if (this.#streams.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /**
   * The shards whose signal moved: the keys of every feed of theirs here, read ten to a
   * `getMany`, handed to each feed (which sequences and reads its log only when its account's
   * `raised` mark moved). One wake at a time; a wake asked for meanwhile runs after.
   */
  #wake(shards: number[]): Promise<void> {
    const wake = this.#wakes.then(async () => {
      const feeds = shards.flatMap((shard) => [...this.#byShard.get(shard) ?? []])
        .filter((feed) => !feed.closed);
      if (feeds.length === 0) return;
      const keys = feeds.map((feed) => feed.keys());
      const entries = await getEntries(this.kv, keys.flat());
      this.#wakeReads += Math.ceil(entries.length / GETMANY_MAX);
      let at = 0;
      feeds.forEach((feed, i) => {
        feed.seen(entries.slice(at, at + keys[i].length));
        at += keys[i].length;
      });
    });
    this.#wakes = wake.catch(() => {});
    return wake;
  }

  async #tick() {
    this.ticks++;
    const now = this.options.now();
    for (const stream of this.#streams) stream.tick(now);
    if (now - this.#lastRenewal < LEASE_RENEW_MS - TICK_MS / 2) return;
    this.#lastRenewal = now;
    const streams = [...this.#streams];
    try {
      const lost = new Set(
        await renewLeases(this.kv, streams.map((s) => s.lease), now + STREAM_LEASE_MS),
      );
      for (const stream of streams) if (lost.has(stream.lease)) stream.end("lease lost");
    } catch (error) {
      this.options.onError("renewing stream leases", error);
    }
  }

  /** Ends every stream (their clients reconnect elsewhere) and stops every feed. */
  async close() {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#signals.stop();
    for (const stream of [...this.#streams]) stream.end("shutdown");
    for (const { feed } of this.#feeds.values()) feed.close();
    this.#feeds.clear();
    this.#byShard.clear();
    // Their slots back before the store closes, so a reconnection is not refused for them.
    await Promise.allSettled([...this.#releases]);
  }
}
