/**
 * One process's view of the store-wide live signals (kv/live/signal.ts): their few keys watched
 * (ten to a watch) where the store's watch sees the writers, polled (ten to a `getMany`) where it
 * does not or fails, and the shards that moved since the last look handed on.
 */
import { GETMANY_MAX } from "../store/limits.ts";
import { getEntries } from "../store/get_all.ts";
import { SIGNAL_SHARDS, signalKeys } from "./signal.ts";

/** How the process learns of signals: a watch, a poll, or both (a watch that misses others). */
export interface SignalMode {
  watch: boolean;
  poll: boolean;
}

export interface SignalListenerOptions {
  mode: SignalMode;
  /** Between the end of one poll and the start of the next. */
  pollIntervalMs: number;
  /** Shards whose signal moved (or was first seen) since the last look, each once. */
  onMoved: (shards: number[]) => Promise<void>;
  onError: (what: string, error: unknown) => void;
}

export class SignalListener {
  /** The newest versionstamp seen of each shard's signal; undefined until first seen. */
  #stamps: (string | undefined)[] = [];
  #watches: ReadableStream<Deno.KvEntryMaybe<unknown>[]>[] = [];
  #pollTimer: ReturnType<typeof setTimeout> | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #mode: SignalMode;
  /** Reads made by the poll. */
  reads = 0;
  /** Poll passes completed. */
  passes = 0;

  constructor(readonly kv: Deno.Kv, readonly options: SignalListenerOptions) {
    this.#mode = { ...options.mode };
  }

  get running(): boolean {
    return this.#running;
  }

  get mode(): SignalMode {
    return { ...this.#mode };
  }

  /** Starts watching or polling (the process has a stream); what was seen before is forgotten. */
  start() {
    if (this.#running) return;
    this.#running = true;
    // Unknown shards count as moved on their first look: a change between a feed's own first
    // read and that look is not missed.
    this.#stamps = new Array(SIGNAL_SHARDS);
    if (this.#mode.watch) this.#watch();
    if (this.#mode.poll) this.#schedulePoll();
  }

  /** Stops (the process has no stream left, or shuts down). */
  stop() {
    this.#running = false;
    clearTimeout(this.#pollTimer);
    clearTimeout(this.#retryTimer);
    this.#pollTimer = this.#retryTimer = undefined;
    const watches = this.#watches;
    this.#watches = [];
    for (const watch of watches) watch.cancel().catch(() => {});
  }

  /** One poll now: every signal read, and the moved shards handed on before it resolves. */
  async pollOnce() {
    const entries = await getEntries(this.kv, signalKeys());
    this.reads += Math.ceil(entries.length / GETMANY_MAX);
    await this.#saw(entries);
    this.passes++;
  }

  /** Compares what a watch or poll read with what was seen; hands on the shards that moved. */
  #saw(entries: Deno.KvEntryMaybe<unknown>[]): Promise<void> {
    const moved: number[] = [];
    for (const entry of entries) {
      const shard = entry.key[1] as number;
      const stamp = entry.versionstamp ?? "";
      const seen = this.#stamps[shard];
      // A versionstamp only grows: an older read (a poll overtaken by the watch) is no change.
      if (seen !== undefined && stamp <= seen) continue;
      this.#stamps[shard] = stamp;
      moved.push(shard);
    }
    if (moved.length === 0) return Promise.resolve();
    return this.options.onMoved(moved).catch((error) => {
      // Not handed on: the shards count as unknown again, and a poll soon looks at them anew
      // (where the store is only watched, the watch would say nothing until the next change).
      for (const shard of moved) this.#stamps[shard] = undefined;
      if (this.#running) this.options.onError("live wake", error);
      this.#retrySoon();
    });
  }

  #retrySoon() {
    if (this.#retryTimer !== undefined || !this.#running) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#running) return;
      this.pollOnce().catch((error) => {
        this.options.onError("live poll", error);
        this.#retrySoon();
      });
    }, this.options.pollIntervalMs);
  }

  #schedulePoll() {
    if (this.#pollTimer !== undefined || !this.#running) return;
    this.#pollTimer = setTimeout(async () => {
      try {
        await this.pollOnce();
      } catch (error) {
        if (this.#running) this.options.onError("live poll", error);
      }
      this.#pollTimer = undefined;
      this.#schedulePoll();
    }, this.options.pollIntervalMs);
  }

  #watch() {
    const keys = signalKeys();
    for (let i = 0; i < keys.length; i += GETMANY_MAX) {
      let stream: ReadableStream<Deno.KvEntryMaybe<unknown>[]>;
      try {
        stream = this.kv.watch(keys.slice(i, i + GETMANY_MAX));
      } catch (error) {
        this.#watchFailed(error);
        return;
      }
      this.#watches.push(stream);
      this.#read(stream);
    }
  }

  async #read(stream: ReadableStream<Deno.KvEntryMaybe<unknown>[]>) {
    try {
      for await (const entries of stream) {
        if (!this.#watches.includes(stream)) return;
        await this.#saw(entries);
      }
      if (this.#watches.includes(stream)) throw new Error("the watch ended");
    } catch (error) {
      if (this.#watches.includes(stream)) this.#watchFailed(error);
    }
  }

  /** Where the watch fails, the process polls instead, within the same bound. */
  #watchFailed(error: unknown) {
    this.options.onError("live watch (polling instead)", error);
    const watches = this.#watches;
    this.#watches = [];
    for (const watch of watches) watch.cancel().catch(() => {});
    this.#mode = { watch: false, poll: true };
    this.#schedulePoll();
  }
}
