/**
 * Request budgets (the hot path) shared by every instance through per-slot counters in KV:
 * admissions are counted in memory and flushed as `sum` mutations in one atomic per tick. The exact
 * limits of rare actions are in `kv/exact_limit.ts`.
 */
import { commit } from "./commit.ts";
import {
  admit,
  decideTallied,
  firstSlot,
  slotIndex,
  slotLeavesAt,
  tally,
  type WindowDecision,
  type WindowTally,
} from "../domain/rate_window.ts";
import { rateLimits } from "./keys.ts";
import { dueMarker, sweepRateSlots } from "./rate_sweep.ts";

/** A named budget: `limit` requests per sliding window of `windowMs`. */
export interface LimitPolicy {
  name: string;
  limit: number;
  windowMs: number;
}

/**
 * Other counters that ride on the limiter's flushes instead of writing on their own (per-key
 * usage): each flush takes their mutations into its atomics and settles them with the outcome.
 */
export interface FlushRider {
  send(): { mutations: Deno.KvMutation[]; settle(ok: boolean): void };
}

/** How often a running limiter flushes its counts and refreshes the shared ones. */
export const SYNC_INTERVAL_MS = 100;
// A shared count older than this is re-read before a decision rather than trusted. A subject
// used within this time is refreshed in the background every tick, so only a subject idle for
// longer costs a read on the request path.
const MAX_STALE_MS = 1_000;
// A background refresh lists a subject's whole window only if its last listing is older than
// this or from another slot; otherwise it re-reads just the two newest slots, the only ones other
// instances' flushes still reach (a flush lands within a tick or two, a slot lasts w/60), five
// subjects per getMany (10 keys, KV's cap). Listing 60 slots of 100 subjects every tick cost a
// 100 ms tick about 90 ms of work in bench/rate_limit_bench.ts.
const FULL_READ_MS = 10_000;
const SUBJECTS_PER_GET = 5;
// Slots that left their window are swept this often (one `kv.list` of the due markers).
const SWEEP_INTERVAL_MS = 5_000;
// Reads in flight at once during a refresh, and mutations per atomic (KV takes at most 1,000).
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
  /** Count of each slot in KV, as last read. */
  shared: Map<number, number>;
  /** `shared` plus this instance's admissions it may lack: what decisions use. */
  counts: Map<number, number>;
  /** `counts` tallied for the current window, null once a read has changed them. */
  tally: WindowTally | null;
  /** The newest slot this instance has set a due marker for. */
  markedSlot: number;
  /** When and at which slot the whole window was last listed. */
  listedAt: number;
  listedSlot: number;
  /** This instance's admissions by slot, kept until a read began after all were committed. */
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
  #riders: FlushRider[] = [];

  constructor(private readonly kv: Deno.Kv, private readonly now: () => number) {}

  /** Decides one request of `subjectId` under `policy`, counting it when allowed. */
  async take(policy: LimitPolicy, subjectId: string): Promise<WindowDecision> {
    const id = `${policy.name}\u0000${subjectId}`;
    let subject = this.#subjects.get(id);
    if (!subject) {
      subject = {
        policy,
        id: subjectId,
        shared: new Map(),
        counts: new Map(),
        tally: null,
        markedSlot: -Infinity,
        listedAt: -Infinity,
        listedSlot: -Infinity,
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
        const { windowMs, limit } = policy;
        let window = subject.tally;
        if (window === null || window.first !== firstSlot(now, windowMs)) {
          window = subject.tally = tally(subject.counts, now, windowMs);
        }
        const decision = decideTallied(window, subject.counts, now, windowMs, limit);
        if (decision.allowed) {
          const index = slotIndex(now, windowMs);
          subject.counts.set(index, (subject.counts.get(index) ?? 0) + 1);
          admit(window, now, windowMs);
          let slot = subject.local.get(index);
          if (!slot) subject.local.set(index, slot = newLocalSlot());
          slot.noted++;
          // A read slower than the idle limit may have let a tick drop it meanwhile: keep it, or
          // this admission would never be flushed.
          this.#subjects.set(id, subject);
        }
        return decision;
      }
      await (subject.loading ?? this.#list(subject));
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

  /** Adds `rider`'s mutations to every flush from now on. */
  carry(rider: FlushRider) {
    this.#riders.push(rider);
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
      const reads: (() => Promise<void>)[] = [];
      const newest: Subject[] = [];
      for (const subject of stale) {
        const slot = slotIndex(now, subject.policy.windowMs);
        if (now - subject.listedAt > FULL_READ_MS || slot !== subject.listedSlot) {
          reads.push(() => this.#list(subject));
        } else {
          newest.push(subject);
        }
      }
      for (let i = 0; i < newest.length; i += SUBJECTS_PER_GET) {
        const group = newest.slice(i, i + SUBJECTS_PER_GET);
        reads.push(() => this.#readNewest(group));
      }
      const readers = Array.from({ length: Math.min(READS_IN_FLIGHT, reads.length) }, async () => {
        for (let read = reads.pop(); read; read = reads.pop()) await read();
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
    const marked: { subject: Subject; before: number }[] = [];
    const mutations: Deno.KvMutation[] = [];
    for (const subject of this.#subjects.values()) {
      const { name, windowMs } = subject.policy;
      for (const [index, slot] of subject.local) {
        const count = slot.noted - slot.sent;
        if (count <= 0) continue;
        if (index > subject.markedSlot) {
          // This instance's first write to the slot: have it swept once it leaves the window.
          marked.push({ subject, before: subject.markedSlot });
          subject.markedSlot = index;
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
    const riders = this.#riders.map((rider) => rider.send());
    for (const ride of riders) mutations.push(...ride.mutations);
    if (mutations.length === 0) return;
    try {
      for (let i = 0; i < mutations.length; i += MUTATIONS_PER_ATOMIC) {
        const res = await commit(
          this.kv.atomic().mutate(...mutations.slice(i, i + MUTATIONS_PER_ATOMIC)),
        );
        if (!res.ok) throw new Error("rate-limit counters were not committed");
      }
    } catch (error) {
      // Unsent again: the next tick retries. (With several chunks, a chunk that did land is
      // counted again: an over-count, the safe direction.)
      for (const { slot, count } of batch) slot.sent -= count;
      for (const { subject, before } of marked.reverse()) subject.markedSlot = before;
      for (const ride of riders) ride.settle(false);
      throw error;
    }
    for (const { slot, count } of batch) slot.committed += count;
    for (const ride of riders) ride.settle(true);
  }

  /** Reads the slots of a subject's window (and the next one) in one `kv.list`. */
  #list(subject: Subject): Promise<void> {
    const now = this.now();
    const { name, windowMs } = subject.policy;
    const from = firstSlot(now, windowMs);
    const to = slotIndex(now, windowMs) + 1;
    const marks = markCommitted(subject, from, to);
    const loading = (async () => {
      const shared = new Map<number, number>();
      const entries = this.kv.list<Deno.KvU64>({
        start: rateLimits.slot(name, subject.id, from),
        end: rateLimits.slot(name, subject.id, to + 1),
      });
      for await (const { key, value } of entries) shared.set(key[3] as number, Number(value.value));
      subject.shared = shared;
      subject.listedAt = now;
      subject.listedSlot = to - 1;
      applyRead(subject, marks, now);
    })().finally(() => {
      subject.loading = null;
    });
    subject.loading = loading;
    return loading;
  }

  /** Re-reads the two newest slots of each subject (at most five) in one `getMany`. */
  #readNewest(subjects: Subject[]): Promise<void> {
    const now = this.now();
    const plan = subjects.map((subject) => {
      const current = slotIndex(now, subject.policy.windowMs);
      return { subject, current, marks: markCommitted(subject, current - 1, current) };
    });
    const keys = plan.flatMap(({ subject, current }) => [
      rateLimits.slot(subject.policy.name, subject.id, current - 1),
      rateLimits.slot(subject.policy.name, subject.id, current),
    ]);
    const loading = this.kv.getMany<Deno.KvU64[]>(keys).then((entries) => {
      plan.forEach(({ subject, current, marks }, i) => {
        for (const [j, index] of [current - 1, current].entries()) {
          const value = entries[i * 2 + j].value;
          if (value) subject.shared.set(index, Number(value.value));
          else subject.shared.delete(index);
        }
        applyNewest(subject, marks, current - 1, current, now);
      });
    }).finally(() => {
      for (const { subject } of plan) subject.loading = null;
    });
    for (const { subject } of plan) subject.loading = loading;
    return loading;
  }
}

/** `committed` of each local slot a read of slots `from`..`to` is about to cover. */
function markCommitted(subject: Subject, from: number, to: number): Map<LocalSlot, number> {
  const marks = new Map<LocalSlot, number>();
  for (const [index, slot] of subject.local) {
    if (index >= from && index <= to) marks.set(slot, slot.committed);
  }
  return marks;
}

/**
 * Rebuilds the counts decisions use from a read: each slot's shared count plus the admissions of
 * this instance committed after the read of that slot began (or not at all).
 */
function applyRead(subject: Subject, marks: Map<LocalSlot, number>, now: number) {
  const first = firstSlot(now, subject.policy.windowMs);
  const counts = new Map<number, number>();
  for (const [index, count] of subject.shared) {
    if (index >= first) counts.set(index, count);
    else subject.shared.delete(index);
  }
  for (const [index, slot] of subject.local) {
    const mark = marks.get(slot);
    if (mark !== undefined) slot.committedAtRead = mark;
    if (slot.noted === slot.committedAtRead || (index < first && slot.noted === slot.committed)) {
      // All of it is in the shared count (or out of the window): the flush and the idle check
      // then walk only the slots of the last moments.
      subject.local.delete(index);
    } else if (index >= first) {
      counts.set(index, (counts.get(index) ?? 0) + slot.noted - slot.committedAtRead);
    }
  }
  subject.counts = counts;
  subject.tally = null;
  subject.readAt = now;
}

/**
 * Like `applyRead` for a read of slots `from`..`to` alone: only their counts change (the window
 * has not moved since the last full listing, which a new slot forces).
 */
function applyNewest(
  subject: Subject,
  marks: Map<LocalSlot, number>,
  from: number,
  to: number,
  now: number,
) {
  for (let index = from; index <= to; index++) {
    const slot = subject.local.get(index);
    const mark = slot && marks.get(slot);
    if (slot && mark !== undefined) slot.committedAtRead = mark;
    if (slot && slot.noted === slot.committedAtRead) subject.local.delete(index);
    const count = (subject.shared.get(index) ?? 0) +
      (slot ? slot.noted - slot.committedAtRead : 0);
    if (count > 0) subject.counts.set(index, count);
    else subject.counts.delete(index);
  }
  subject.tally = null;
  subject.readAt = now;
}

function newLocalSlot(): LocalSlot {
  return { noted: 0, sent: 0, committed: 0, committedAtRead: 0 };
}
