/**
 * Request budgets (the hot path) shared by every instance through per-slot counters in KV:
 * admissions are counted in memory and flushed as `sum` mutations in one atomic per tick. The exact
 * limits of rare actions are in `kv/exact_limit.ts`.
 */
import {
  decide,
  firstSlot,
  slotIndex,
  slotLeavesAt,
  type WindowDecision,
} from "../domain/rate_window.ts";
import { rateLimits } from "./keys.ts";
import { dueMarker, sweepRateSlots } from "./rate_sweep.ts";

/** A named budget: `limit` requests per sliding window of `windowMs`. */
export interface LimitPolicy {
  name: string;
  limit: number;
  windowMs: number;
}

/** How often a running limiter flushes its counts and refreshes the shared ones. */
export const SYNC_INTERVAL_MS = 100;
// A shared count older than this is re-read before a decision rather than trusted. A subject
// used within this time is refreshed in the background every tick, so only a subject idle for
// longer costs a read on the request path.
const MAX_STALE_MS = 1_000;
// Slots that left their window are swept this often (one `kv.list` of the due markers).
const SWEEP_INTERVAL_MS = 5_000;
// Refresh reads in flight at once (one `kv.list` per subject), and mutations per atomic (KV
// takes at most 1,000).
const READS_IN_FLIGHT = 16;
const MUTATIONS_PER_ATOMIC = 500;

/** What this instance admitted into one slot of one subject. */
interface LocalSlot {
  /** Requests this instance admitted into the slot, ever. */
  noted: number;
  /** Of those, handed to a flush (committed or in flight). */
  sent: number;
  /** Of those, committed to KV. */
  committed: number;
  /** `committed` when the last read began: later commits may be missing from that read. */
  committedAtRead: number;
}

interface Subject {
  policy: LimitPolicy;
  id: string;
  /** Shared count of each slot at the last read plus this instance's admissions it may lack. */
  counts: Map<number, number>;
  /** This instance's admissions by slot, kept until committed and out of the window. */
  local: Map<number, LocalSlot>;
  readAt: number;
  /** When it was last used: while that is recent, each tick refreshes it in the background. */
  usedAt: number;
  loading: Promise<void> | null;
}

/**
 * Request budgets shared by every instance without a KV write or read per request. A decision
 * uses the last-read shared slot counts plus this instance's unflushed admissions; `sync()` (every
 * SYNC_INTERVAL_MS while `run` is on) commits the admissions as `sum`s in one atomic and re-reads
 * the subjects in use, one `kv.list` over each subject's window. Each instance can therefore admit
 * what it has not yet seen of the others: see the README's overshoot bound.
 */
export class SharedRateLimiter {
  #subjects = new Map<string, Subject>();
  #lastSync: Promise<void> = Promise.resolve();
  #syncing = false;
  #sweptAt = -Infinity;

  constructor(private readonly kv: Deno.Kv, private readonly now: () => number) {}

  /** Decides one request of `subjectId` under `policy`, counting it when allowed. */
  async take(policy: LimitPolicy, subjectId: string): Promise<WindowDecision> {
    const id = `${policy.name}\u0000${subjectId}`;
    let subject = this.#subjects.get(id);
    if (!subject) {
      subject = {
        policy,
        id: subjectId,
        counts: new Map(),
        local: new Map(),
        readAt: -Infinity,
        usedAt: -Infinity,
        loading: null,
      };
      this.#subjects.set(id, subject);
    }
    subject.usedAt = this.now();
    while (true) {
      const now = this.now();
      if (now - subject.readAt <= MAX_STALE_MS) {
        const decision = decide(subject.counts, now, policy.windowMs, policy.limit);
        if (decision.allowed) {
          const index = slotIndex(now, policy.windowMs);
          subject.counts.set(index, (subject.counts.get(index) ?? 0) + 1);
          let slot = subject.local.get(index);
          if (!slot) subject.local.set(index, slot = newLocalSlot());
          slot.noted++;
          // A read slower than the idle limit may have let a tick drop it meanwhile: keep it, or
          // this admission would never be flushed.
          this.#subjects.set(id, subject);
        }
        return decision;
      }
      await (subject.loading ?? this.#load(subject));
    }
  }

  /** Commits every admission not yet in KV, then re-reads the subjects used since last time. */
  sync(): Promise<void> {
    const next = this.#lastSync.catch(() => {}).then(() => this.#syncOnce());
    this.#lastSync = next;
    return next;
  }

  /**
   * Syncs every `intervalMs` until the returned function is called; that function stops the
   * ticks and performs a last sync, so no admission is lost at shutdown.
   */
  run(intervalMs: number, onError: (error: Error) => void): () => Promise<void> {
    const timer = setInterval(() => {
      if (this.#syncing) return; // a slow store must not pile up ticks
      this.sync().catch(onError);
    }, intervalMs);
    return async () => {
      clearInterval(timer);
      await this.sync();
    };
  }

  /** Subjects held in memory, for tests. */
  get size(): number {
    return this.#subjects.size;
  }

  /** Admissions not yet committed to KV, for tests and shutdown checks. */
  pending(): number {
    let total = 0;
    for (const subject of this.#subjects.values()) {
      for (const slot of subject.local.values()) total += slot.noted - slot.committed;
    }
    return total;
  }

  async #syncOnce() {
    this.#syncing = true;
    try {
      await this.#flush();
      const now = this.now();
      const stale: Subject[] = [];
      for (const [key, subject] of this.#subjects) {
        if (subject.loading) continue;
        if (now - subject.usedAt <= MAX_STALE_MS) {
          stale.push(subject);
        } else if ([...subject.local.values()].every((s) => s.noted === s.committed)) {
          // Idle and fully in KV: its next use would re-read anyway, so memory holds only the
          // subjects of the last second or two, however many addresses come and go.
          this.#subjects.delete(key);
        }
      }
      const readers = Array.from({ length: Math.min(READS_IN_FLIGHT, stale.length) }, async () => {
        for (let subject = stale.pop(); subject; subject = stale.pop()) await this.#load(subject);
      });
      await Promise.all(readers);
      if (now - this.#sweptAt >= SWEEP_INTERVAL_MS) {
        this.#sweptAt = now;
        await sweepRateSlots(this.kv, now);
      }
    } finally {
      this.#syncing = false;
    }
  }

  /** Sends every unsent admission as `sum`s, in as few atomics as KV allows. */
  async #flush() {
    const batch: { slot: LocalSlot; count: number }[] = [];
    const mutations: Deno.KvMutation[] = [];
    for (const subject of this.#subjects.values()) {
      const { name, windowMs } = subject.policy;
      for (const [index, slot] of subject.local) {
        const count = slot.noted - slot.sent;
        if (count <= 0) continue;
        if (slot.sent === 0) {
          // This instance's first write to the slot: have it swept once it leaves the window.
          mutations.push(dueMarker(slotLeavesAt(index, windowMs), name, subject.id, index));
        }
        slot.sent += count;
        batch.push({ slot, count });
        mutations.push({
          type: "sum",
          key: rateLimits.slot(name, subject.id, index),
          value: new Deno.KvU64(BigInt(count)),
        });
      }
    }
    if (batch.length === 0) return;
    try {
      for (let i = 0; i < mutations.length; i += MUTATIONS_PER_ATOMIC) {
        const res = await this.kv.atomic().mutate(...mutations.slice(i, i + MUTATIONS_PER_ATOMIC))
          .commit();
        if (!res.ok) throw new Error("rate-limit counters were not committed");
      }
    } catch (error) {
      // Unsent again: the next tick retries. (With several chunks, a chunk that did land is
      // counted again: an over-count, the safe direction.)
      for (const { slot, count } of batch) slot.sent -= count;
      throw error;
    }
    for (const { slot, count } of batch) slot.committed += count;
  }

  /** Reads the slots of a subject's window (and the next one) in one `kv.list`. */
  #load(subject: Subject): Promise<void> {
    const now = this.now();
    const { name, windowMs } = subject.policy;
    const first = firstSlot(now, windowMs);
    const marks = new Map<LocalSlot, number>();
    for (const slot of subject.local.values()) marks.set(slot, slot.committed);
    const loading = (async () => {
      const counts = new Map<number, number>();
      const entries = this.kv.list<Deno.KvU64>({
        start: rateLimits.slot(name, subject.id, first),
        end: rateLimits.slot(name, subject.id, slotIndex(now, windowMs) + 2),
      });
      for await (const { key, value } of entries) {
        counts.set(key[3] as number, Number(value.value));
      }
      for (const [index, slot] of subject.local) {
        // Admitted during the read, or before it but left out of a slow read: not in `counts`.
        if (marks.has(slot)) slot.committedAtRead = marks.get(slot)!;
        if (index < first && slot.noted === slot.committed) {
          subject.local.delete(index);
        } else if (index >= first) {
          counts.set(index, (counts.get(index) ?? 0) + slot.noted - slot.committedAtRead);
        }
      }
      subject.counts = counts;
      subject.readAt = now;
    })().finally(() => {
      subject.loading = null;
    });
    subject.loading = loading;
    return loading;
  }
}

function newLocalSlot(): LocalSlot {
  return { noted: 0, sent: 0, committed: 0, committedAtRead: 0 };
}
