/**
 * Counts each API key's requests by hour, day and outcome in memory and hands them to a rate
 * limiter's flush as `sum` mutations: usage costs no KV write of its own. Counts are held for up
 * to HOLD_MS before they ride along (every tick would add a key's sums to nearly every 100 ms
 * flush, several times its write units; see docs/api-keys.md), so the figures of every instance
 * are in KV within seconds.
 */
import { bucketStart, type Outcome, outcomeOf, type UsageUnit } from "../../domain/usage.ts";
import { pruneUsage } from "./api_key_usage.ts";
import { apiKeyUsage } from "../keyspace.ts";
import type { FlushRider } from "../rate_limit/rate_limit_rules.ts";

interface Pending {
  keyId: string;
  unit: UsageUnit;
  start: number;
  outcome: Outcome;
  count: number;
}

/** How long counts wait for a flush to ride on; well within the contract's minute. */
export const HOLD_MS = 10_000;

// Remembered days per key for pruning; past this many keys the memory is dropped (a key then
// costs one extra prune).
const MAX_PRUNE_MEMORY = 10_000;

export class UsageCounter implements FlushRider {
  #pending = new Map<string, Pending>();
  /** The day each key was last pruned on by this instance. */
  #prunedOn = new Map<string, number>();
  #pruning: Promise<void> = Promise.resolve();
  /** When the oldest count not yet sent was noted; null when none is held. */
  #heldSince: number | null = null;
  #released = false;
  /**
   * The buckets the last request was counted in, and the map holding them: the next request of
   * the same key, outcome and hour (most of them, on a busy key) is counted without building
   * two ids and looking them up.
   */
  #last: {
    keyId: string;
    outcome: Outcome;
    hour: number;
    of: Map<string, Pending>;
    hourly: Pending;
    daily: Pending;
  } | null = null;

  constructor(
    private readonly kv: Deno.Kv,
    private readonly now: () => number,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Counts one answered request of `keyId`. */
  note(keyId: string, status: number, now: number) {
    this.#heldSince ??= now;
    const outcome = outcomeOf(status);
    const hour = bucketStart("hour", now);
    const last = this.#last;
    // A UTC hour lies within one UTC day: the same hour is the same two buckets.
    if (
      last !== null && last.keyId === keyId && last.outcome === outcome && last.hour === hour &&
      last.of === this.#pending
    ) {
      last.hourly.count++;
      last.daily.count++;
      return;
    }
    const hourly = this.#add(keyId, "hour", hour, outcome);
    const daily = this.#add(keyId, "day", bucketStart("day", now), outcome);
    this.#last = { keyId, outcome, hour, of: this.#pending, hourly, daily };
  }

  #add(keyId: string, unit: UsageUnit, start: number, outcome: Outcome): Pending {
    const id = `${keyId}\u0000${unit}\u0000${start}\u0000${outcome}`;
    const pending = this.#pending.get(id);
    if (pending) {
      pending.count++;
      return pending;
    }
    const added = { keyId, unit, start, outcome, count: 1 };
    this.#pending.set(id, added);
    return added;
  }

  /** Counts not yet handed to a flush, for tests. */
  get pending(): number {
    let total = 0;
    for (const p of this.#pending.values()) if (p.unit === "hour") total += p.count;
    return total;
  }

  /** Has every held count ride on the next flush (before a pause or shutdown, and in tests). */
  release() {
    this.#released = true;
  }

  /**
   * Hands every pending count to a flush once the oldest is HOLD_MS old or they were released;
   * `settle(false)` takes them back for the next flush.
   */
  send(): { mutations: Deno.KvMutation[]; settle(ok: boolean): void } {
    const taken = this.#pending;
    const heldSince = this.#heldSince;
    const due = this.#released || (heldSince !== null && this.now() - heldSince >= HOLD_MS);
    if (taken.size === 0 || !due) return { mutations: [], settle() {} };
    this.#pending = new Map();
    this.#heldSince = null;
    this.#released = false;
    const mutations: Deno.KvMutation[] = [...taken.values()].map((p) => ({
      type: "sum",
      key: apiKeyUsage.bucket(p.keyId, p.unit, p.start, p.outcome),
      value: new Deno.KvU64(BigInt(p.count)),
    }));
    return {
      mutations,
      settle: (ok) => {
        if (!ok) {
          this.#heldSince = Math.min(heldSince ?? Infinity, this.#heldSince ?? Infinity);
          this.#released = true; // retried at the next flush
          for (const [id, p] of taken) {
            const now = this.#pending.get(id);
            if (now) now.count += p.count;
            else this.#pending.set(id, p);
          }
          return;
        }
        for (const p of taken.values()) if (p.unit === "day") this.#pruneOnce(p.keyId, p.start);
      },
    };
  }

  /** Prunes a key's old buckets once per day it is used on, in the background. */
  #pruneOnce(keyId: string, day: number) {
    if ((this.#prunedOn.get(keyId) ?? -Infinity) >= day) return;
    if (this.#prunedOn.size >= MAX_PRUNE_MEMORY) this.#prunedOn.clear();
    this.#prunedOn.set(keyId, day);
    this.#pruning = this.#pruning
      .then(() => pruneUsage(this.kv, keyId, day))
      .catch((error: Error) => this.onError(error));
  }

  /** Resolves once the prunes started so far are done, for tests and shutdown. */
  pruned(): Promise<void> {
    return this.#pruning;
  }
}
