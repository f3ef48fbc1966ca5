/**
 * One account's events as this process learns them, shared by all of the account's streams here:
 * when the process's hub sees the account's signal shard move (kv/live/signal.ts), it reads the
 * account's `raised` mark and its streams' credential keys and hands them here; then one
 * sequencing pass and one log read per change, handed to every stream in order.
 */
import { live } from "../keyspace.ts";
import { getEntries } from "../store/get_all.ts";
import { type LoggedEvent, readLog } from "./event_log.ts";
import { type Head, sequencePending } from "./sequencer.ts";

/** A stream as the feed serves it. */
export interface FeedListener {
  /** The key whose change may end the stream (its credential's). */
  readonly credentialKey: Deno.KvKey;
  /**
   * Events placed since the last delivery, in order, with each listener's credential key as read
   * after them: a listener sends nothing its credential, as it is now, does not allow.
   */
  deliver(events: LoggedEvent[], credential: Deno.KvEntryMaybe<unknown>): void;
  /** The credential key as the watch or poll saw it (it may have moved). */
  credentialSeen(entry: Deno.KvEntryMaybe<unknown>): void;
}

/** Log pages read per delivery at most (each delivery reads what was placed since the last). */
const PAGE = 500;

const keyText = (key: Deno.KvKey) => JSON.stringify(key);

export class AccountFeed {
  /** The last place read and delivered; null until the first pass. */
  #seen: number | null = null;
  /** The versionstamp of `raised` that the last sequencing covered. */
  #covers: string | null | undefined = undefined;
  readonly #listeners = new Set<FeedListener>();
  #serial: Promise<void> = Promise.resolve();
  #queued = false;
  #closed = false;
  /** Reads made by this feed (the hub's wake reads apart). */
  reads = 0;

  constructor(
    readonly kv: Deno.Kv,
    readonly userId: string,
    readonly onError: (what: string, error: unknown) => void,
  ) {}

  get size(): number {
    return this.#listeners.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The keys the hub reads when the account's shard moves: its `raised` mark, then each
   * credential key once. (The head needs no look: a sequencing pass reads it after its list,
   * so whatever another process placed is seen by this one's next pass.)
   */
  keys(): Deno.KvKey[] {
    const keys = new Map<string, Deno.KvKey>([[
      keyText(live.raised(this.userId)),
      live.raised(this.userId),
    ]]);
    for (const l of this.#listeners) keys.set(keyText(l.credentialKey), l.credentialKey);
    return [...keys.values()];
  }

  /**
   * Adds `listener` once every event raised so far is placed; `joined` hears, before any delivery
   * to it, the last place this feed has delivered (what a stream opened now starts after).
   */
  join(listener: FeedListener, joined: (seen: number) => void): Promise<void> {
    return this.#run(async () => {
      await this.#advance(true);
      this.#listeners.add(listener);
      joined(this.#seen!);
    });
  }

  /** Places what is pending and answers the last place (a resume checks its id against it). */
  sync(): Promise<number> {
    let seen = 0;
    return this.#run(async () => {
      await this.#advance(true);
      seen = this.#seen!;
    }).then(() => seen);
  }

  leave(listener: FeedListener) {
    this.#listeners.delete(listener);
  }

  /** Stops (the last stream left, or shutdown). */
  close() {
    this.#closed = true;
  }

  #run(task: () => Promise<void>): Promise<void> {
    const run = this.#serial.then(task);
    this.#serial = run.catch((error) => this.onError("live feed", error));
    return run;
  }

  /**
   * The keys (`keys()`) as the hub read them after the shard moved: one pass when something was
   * raised, however many moves come meanwhile; credential keys handed to their streams.
   */
  seen(entries: Deno.KvEntryMaybe<unknown>[]) {
    if (this.#closed) return;
    const byKey = new Map(entries.map((e) => [keyText(e.key), e]));
    for (const l of this.#listeners) {
      const entry = byKey.get(keyText(l.credentialKey));
      if (entry) l.credentialSeen(entry);
    }
    const raised = byKey.get(keyText(live.raised(this.userId)));
    if (raised?.versionstamp === this.#covers || this.#queued) return;
    this.#queued = true;
    this.#run(async () => {
      this.#queued = false;
      await this.#advance(false);
    });
  }

  /**
   * Places what is pending (when something was raised since the last sequencing, or `always`),
   * then reads and delivers what was placed since the last delivery.
   */
  async #advance(always: boolean) {
    if (this.#closed) return;
    const [raised, headEntry] = await this.kv.getMany<[string, Head]>([
      live.raised(this.userId),
      live.head(this.userId),
    ]);
    this.reads++;
    let head = headEntry.value?.seq ?? 0;
    if (always || raised.versionstamp !== this.#covers) {
      const placed = await sequencePending(this.kv, this.userId);
      this.reads += 2;
      head = placed.head;
      this.#covers = placed.covers;
    }
    if (this.#seen === null) {
      this.#seen = head;
      return;
    }
    while (head > this.#seen) {
      const events = await readLog(this.kv, {
        userId: this.userId,
        after: this.#seen,
        upTo: head,
        limit: PAGE,
      });
      this.reads++;
      if (events.length === 0) {
        // Expired before it was read (a feed idle past the log's retention): skip the gap.
        this.#seen = head;
        break;
      }
      const listeners = [...this.#listeners];
      // After the log: whatever the credentials are now is what the events are sent under.
      const credentials = await getEntries(this.kv, listeners.map((l) => l.credentialKey));
      this.reads += Math.ceil(listeners.length / 10);
      listeners.forEach((l, i) => l.deliver(events, credentials[i]));
      this.#seen = events[events.length - 1].seq;
    }
  }
}
