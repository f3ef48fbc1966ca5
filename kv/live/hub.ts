/**
 * This process's live streams: one feed per account with streams here (shared by them), the
 * renewal of their leases in a few atomics, heartbeats, and their end at shutdown. How feeds learn
 * of changes depends on the store: its watch where it sees every writer, a poll where it has no
 * watch or its watch sees only this process's writes (a local SQLite file shared by workers).
 */
import { isKvConnectUrl } from "../../domain/settings.ts";
import { LEASE_RENEW_MS, POLL_INTERVAL_MS, STREAM_LEASE_MS } from "../../domain/live/live_rules.ts";
import { getEntries } from "../store/get_all.ts";
import { AccountFeed, type FeedListener, type FeedMode } from "./feed.ts";
import { type HeldLease, releaseLease, renewLeases } from "./stream_leases.ts";

/** A stream as the hub holds it. */
export interface HubStream extends FeedListener {
  readonly userId: string;
  readonly lease: HeldLease;
  /** Ends the stream (its lease was lost, or the process stops). */
  end(reason: string): void;
  /** Called every few seconds: a stream that sent nothing for a while sends a comment. */
  tick(now: number): void;
}

/** How often the hub looks at its streams (heartbeats are due well within 15 s). */
const TICK_MS = 5_000;

/**
 * The feed mode for a store: SQLite's watch reports only this process's commits, so a local
 * file (which other workers may share) is polled too; KV Connect and Deno Deploy watch across
 * instances; `:memory:` has no other process. Without `watch` at all, polling alone.
 */
export function feedModeFor(kv: Deno.Kv, kvPath: string | undefined): FeedMode {
  const watch = typeof (kv as { watch?: unknown }).watch === "function";
  const remote = isKvConnectUrl(kvPath) || (!kvPath && Deno.env.get("DENO_DEPLOYMENT_ID"));
  const shared = !remote && kvPath !== ":memory:";
  return { watch, poll: !watch || shared };
}

export class LiveHub {
  readonly #feeds = new Map<string, { feed: AccountFeed; holds: number }>();
  readonly #streams = new Set<HubStream>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastRenewal = 0;
  #closed = false;
  readonly #releases = new Set<Promise<void>>();
  #pollTimer: ReturnType<typeof setTimeout> | undefined;
  /** Reads made by the poll of every polled feed. */
  #pollReads = 0;

  constructor(
    readonly kv: Deno.Kv,
    readonly options: {
      mode: FeedMode;
      now: () => number;
      onError: (what: string, error: unknown) => void;
    },
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  /** Open streams on this process. */
  get streams(): number {
    return this.#streams.size;
  }

  /** Reads made by every feed so far (watch answers apart). */
  get feedReads(): number {
    let reads = this.#pollReads;
    for (const { feed } of this.#feeds.values()) reads += feed.reads;
    return reads;
  }

  /** The account's feed, held until `release` (a stream being opened keeps it alive). */
  hold(userId: string): AccountFeed {
    let held = this.#feeds.get(userId);
    if (!held) {
      held = {
        feed: new AccountFeed(this.kv, userId, this.options.mode, this.options.onError),
        holds: 0,
      };
      this.#feeds.set(userId, held);
      this.#schedulePoll();
    }
    held.holds++;
    return held.feed;
  }

  release(userId: string) {
    const held = this.#feeds.get(userId);
    if (!held) return;
    held.holds--;
    if (held.holds === 0 && held.feed.size === 0) {
      held.feed.close();
      this.#feeds.delete(userId);
    }
  }

  /** Takes an admitted stream in: its lease is renewed with the others' from now on. */
  add(stream: HubStream) {
    this.#streams.add(stream);
    this.#timer ??= setInterval(() => this.#tick(), TICK_MS);
  }

  /** A stream ended: its slot goes back at once, and its feed when it was the last. */
  remove(stream: HubStream) {
    if (!this.#streams.delete(stream)) return;
    this.#feeds.get(stream.userId)?.feed.leave(stream);
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
   * One poll for every polled feed of this process, every POLL_INTERVAL_MS: their keys read ten
   * to a `getMany`, so an idle account costs a fraction of a read, not a read of its own.
   */
  #schedulePoll() {
    if (this.#pollTimer !== undefined || this.#closed) return;
    this.#pollTimer = setTimeout(async () => {
      const feeds = [...this.#feeds.values()].map((held) => held.feed).filter((f) => f.polled);
      try {
        const keys = feeds.map((feed) => feed.keys());
        const entries = await getEntries(this.kv, keys.flat());
        this.#pollReads += Math.ceil(entries.length / 10);
        let at = 0;
        feeds.forEach((feed, i) => {
          feed.pollRead(entries.slice(at, at + keys[i].length));
          at += keys[i].length;
        });
      } catch (error) {
        if (!this.#closed) this.options.onError("live poll", error);
      }
      this.#pollTimer = undefined;
      if (this.#feeds.size > 0) this.#schedulePoll();
    }, POLL_INTERVAL_MS);
  }

  async #tick() {
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
    clearTimeout(this.#pollTimer);
    for (const stream of [...this.#streams]) stream.end("shutdown");
    for (const { feed } of this.#feeds.values()) feed.close();
    this.#feeds.clear();
    // Their slots back before the store closes, so a reconnection is not refused for them.
    await Promise.allSettled([...this.#releases]);
  }
}
