/**
 * One open stream's body: the account's events after its cursor, in order, each once, filtered
 * by its credential's rights as they are when it is sent; a comment at least every 15 seconds;
 * ended after an hour, when its credential no longer allows it, its lease is lost, the process
 * stops, or its client stops reading (past a bounded buffer). A client resumes by its last id.
 */
import {
  HEARTBEAT_MS,
  HEARTBEAT_SLACK_MS,
  RECONNECT_MS,
  STREAM_BUFFER_BYTES,
  STREAM_MAX_MS,
} from "../../domain/live/live_rules.ts";
import { commentFrame, eventFrame, retryFrame } from "../../domain/live/sse.ts";
import { type StreamCredential, streamGrant } from "../../domain/live/stream_access.ts";
import { mayHear } from "../../domain/webhooks/event_access.ts";
import { bodyText, type LoggedEvent, readLog } from "../../kv/live/event_log.ts";
import type { HubStream, LiveHub } from "../../kv/live/hub.ts";
import { judgeCredential, type Judged, watchedKey } from "../../kv/live/stream_credential.ts";
import type { HeldLease } from "../../kv/live/stream_leases.ts";

/** Each event's frame, made once for all the streams it goes to. */
const frames = new WeakMap<LoggedEvent, Promise<Uint8Array | null>>();

async function frameOf(kv: Deno.Kv, event: LoggedEvent): Promise<Uint8Array | null> {
  let frame = frames.get(event);
  if (!frame) {
    frame = bodyText(kv, event).then((data) =>
      data === null ? null : eventFrame({ id: event.id, type: event.type, data })
    );
    frames.set(event, frame);
  }
  return await frame;
}

export interface LiveStreamOptions {
  hub: LiveHub;
  kv: Deno.Kv;
  credential: StreamCredential;
  judged: Judged;
  lease: HeldLease;
  /** The place of the client's last event; null: from the moment the stream opens. */
  cursor: number | null;
  now: () => number;
  /** Why the stream ended, for the log. */
  onEnd: (reason: string, sent: number) => void;
}

export class LiveStream implements HubStream {
  readonly body: ReadableStream<Uint8Array>;
  readonly userId: string;
  readonly lease: HeldLease;
  readonly credentialKey: Deno.KvKey;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #cursor: number | null;
  #judged: Judged;
  #chain: Promise<void> = Promise.resolve();
  #lastWrite: number;
  #ended = false;
  #sent = 0;
  readonly #grant;

  constructor(readonly options: LiveStreamOptions) {
    const { credential, judged, lease, cursor, now } = options;
    this.userId = credential.userId;
    this.lease = lease;
    this.credentialKey = watchedKey(credential);
    this.#cursor = cursor;
    this.#judged = judged;
    this.#grant = streamGrant(credential);
    this.#lastWrite = now();
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        controller.enqueue(retryFrame(RECONNECT_MS));
      },
      cancel: () => this.end("client gone"),
    }, { highWaterMark: STREAM_BUFFER_BYTES, size: (chunk) => chunk.byteLength });
  }

  /** The feed's last delivered place when this stream joined: a fresh stream starts after it. */
  joined(seen: number) {
    if (this.#cursor === null) this.#cursor = seen;
    else if (this.#cursor < seen) this.#then(() => this.#catchUp(seen));
  }

  deliver(events: LoggedEvent[], credential: Deno.KvEntryMaybe<unknown>) {
    this.#then(() => this.#send(events, credential));
  }

  credentialSeen(entry: Deno.KvEntryMaybe<unknown>) {
    if (entry.versionstamp === this.#judged.versionstamp) return;
    this.#then(() => this.#stillAllowed(entry).then(() => {}));
  }

  /**
   * The hub's tick (no timer of its own, so an idle stream holds none): the stream ends an hour
   * after it opened or when its credential expires, and sends a comment when it has been silent
   * for HEARTBEAT_MS less the slack of the tick and its lateness on a loaded machine.
   */
  tick(now: number) {
    if (this.#ended) return;
    if (now >= this.lease.openedAt + STREAM_MAX_MS) return this.end("time");
    if (now >= this.#judged.until) return this.end("credential expired");
    if (now - this.#lastWrite >= HEARTBEAT_MS - HEARTBEAT_SLACK_MS) {
      this.#write(commentFrame("keep-alive"));
    }
  }

  end(reason: string) {
    if (this.#ended) return;
    this.#ended = true;
    try {
      this.#controller.close();
    } catch {
      // Cancelled by the client already.
    }
    this.options.hub.remove(this);
    this.options.onEnd(reason, this.#sent);
  }

  #then(step: () => Promise<void>) {
    this.#chain = this.#chain.then(step).catch((error) => {
      // A read that failed cannot be skipped without losing events: the client resumes.
      this.end(`failed: ${(error as Error)?.message}`);
    });
  }

  /** True while the credential, whose key reads as `entry`, still allows the stream; else ends it. */
  async #stillAllowed(entry: Deno.KvEntryMaybe<unknown>): Promise<boolean> {
    if (this.#ended) return false;
    const now = this.options.now();
    if (entry.versionstamp !== this.#judged.versionstamp) {
      const judged = await judgeCredential(this.options.kv, this.options.credential, now);
      if (!judged) {
        this.end("credential");
        return false;
      }
      this.#judged = judged;
    }
    if (now >= this.#judged.until) {
      this.end("credential expired");
      return false;
    }
    return true;
  }

  /** Reads and sends what the log holds after the cursor up to `upTo` (a resume, or a gap). */
  async #catchUp(upTo: number) {
    const { kv } = this.options;
    while (!this.#ended && this.#cursor! < upTo) {
      const events = await readLog(kv, { userId: this.userId, after: this.#cursor!, upTo });
      // After the log: the credential as it is when these are sent.
      const credential = await kv.get(this.credentialKey);
      if (events.length === 0) {
        this.#cursor = upTo; // expired before it was read
        return;
      }
      await this.#send(events, credential);
    }
  }

  async #send(events: LoggedEvent[], credential: Deno.KvEntryMaybe<unknown>) {
    if (this.#ended || this.#cursor === null) return;
    const fresh = events.filter((e) => e.seq > this.#cursor!);
    if (fresh.length === 0) return;
    if (fresh[0].seq > this.#cursor + 1) await this.#catchUp(fresh[0].seq - 1);
    if (!await this.#stillAllowed(credential)) return;
    for (const event of fresh) {
      if (this.#ended) return;
      if (event.seq <= this.#cursor!) continue;
      if (mayHear(this.#grant, event.type)) {
        const frame = await frameOf(this.options.kv, event);
        if (frame && !this.#write(frame)) return;
        if (frame) this.#sent++;
      }
      this.#cursor = event.seq;
    }
  }

  /** Queues `frame`; false (and the stream ended) when the client has left too much unread. */
  #write(frame: Uint8Array): boolean {
    if (this.#ended) return false;
    const room = this.#controller.desiredSize ?? 0;
    if (room < frame.byteLength) {
      this.end("client not reading");
      return false;
    }
    this.#controller.enqueue(frame);
    this.#lastWrite = this.options.now();
    return true;
  }
}
