/**
 * Gives raised events their place in the account's log. Raising atomics only add a pending entry
 * (no read, no check, so no contention between writers); whichever process next looks moves the
 * pending entries into the log in one atomic checked against the account's head, in the order
 * their raising commits landed (their versionstamps), so every stream on every instance sees one
 * order, and an event is placed once.
 */
import { LOG_RETENTION_MS } from "../../domain/live/live_rules.ts";
import { eventUlid } from "../../domain/webhooks/event.ts";
import { commit } from "../commit.ts";
import { live } from "../keyspace.ts";
import type { LogRecord } from "./event_log.ts";

/** Pending entries read per round; a round's atomic stays within every store's limits. */
const BATCH = 100;
/** Body bytes one sequencing atomic carries at most (Deno KV takes 800 KiB). */
const BATCH_BYTES = 600_000;

/** The account's head: the last place given. */
export interface Head {
  seq: number;
}

/** What sequencing found: the head after it, and the versionstamp of `raised` it covers. */
export interface Sequenced {
  head: number;
  /** Every event raised up to this `raised` versionstamp is placed (null: none ever raised). */
  covers: string | null;
}

/**
 * Places every event pending for `userId`, in rounds, and answers the head. A round that loses
 * to another sequencer (the head moved) reads again: that one placed what it read.
 */
export async function sequencePending(kv: Deno.Kv, userId: string): Promise<Sequenced> {
  for (;;) {
    // The raised mark first: whatever it covers is then pending or placed when the list runs.
    // The head before the pending list: a round placed in between moves the head we check.
    const [raised, head] = await kv.getMany<[string, Head]>([
      live.raised(userId),
      live.head(userId),
    ]);
    const seq = head.value?.seq ?? 0;
    const pending: Deno.KvEntry<LogRecord>[] = [];
    for await (
      const entry of kv.list<LogRecord>({ prefix: live.pendingPrefix(userId) }, { limit: BATCH })
    ) pending.push(entry);
    if (pending.length === 0) {
      // Nothing left to place, but another sequencer may have placed what was pending after
      // the head above was read: the head read after the list covers it. Feeds then need no
      // word of other processes' sequencing, only of raising (kv/live/signal.ts).
      const after = await kv.get<Head>(live.head(userId));
      return { head: after.value?.seq ?? 0, covers: raised.versionstamp };
    }
    // Commit order: a versionstamp orders commits across the whole store.
    pending.sort((a, b) =>
      a.versionstamp < b.versionstamp ? -1 : a.versionstamp > b.versionstamp ? 1 : 0
    );
    const op = kv.atomic().check(head);
    let next = seq;
    let bytes = 0;
    for (const entry of pending) {
      const size = entry.value.body?.byteLength ?? 0;
      if (next > seq && bytes + size > BATCH_BYTES) break;
      bytes += size;
      next++;
      op.set(live.log(userId, next), entry.value, { expireIn: LOG_RETENTION_MS });
      op.set(live.seqOf(userId, eventUlid(entry.value.id)), next, { expireIn: LOG_RETENTION_MS });
      op.delete(entry.key);
    }
    op.set(live.head(userId), { seq: next } satisfies Head);
    await commit(op);
    // Placed, or placed by another: either way the next round reads the head as it is.
  }
}
