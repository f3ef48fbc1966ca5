/**
 * Request budgets (the hot path) shared by every instance through per-slot counters in KV:
 * admissions are counted in memory and flushed as `sum` mutations in one atomic per tick. The exact
 * limits of rare actions are in `kv/exact_limit.ts`.
 */
import { commit } from "./commit.ts";
import { SlotLedger } from "../domain/slot_ledger.ts";
import {
  firstSlot,
  slotIndex,
  slotLeavesAt,
  type WindowDecision,
  type WindowLimit,
} from "../domain/rate_window.ts";
import { rateLimits } from "./keys.ts";
import { dueMarker, sweepRateSlots } from "./rate_sweep.ts";

/** A named budget: `limit` requests per sliding window of `windowMs`. */
export interface LimitPolicy extends WindowLimit {
  name: string;
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
// A shared count older than this is re-read before a decision rather than trusted.
const MAX_VIEW_AGE_MS = 1_000;
// A subject used within this time is refreshed in the background every tick, so only a subject
// idle for longer costs a read on the request path; one idle for longer whose admissions are all
// in KV leaves memory.
const ACTIVE_MS = 1_000;
// A background refresh lists a subject's whole window only if its last listing is older than
// this or from another slot; otherwise it re-reads just the two newest slots, the only ones other
// instances' flushes still reach (a flush lands within a tick or two, a slot lasts w/60), five
// subjects per getMany (10 keys, KV's cap): listing every active window on every tick would take
// most of the tick (docs/rate-limits.md, "The hot path").
const FULL_READ_MS = 10_000;
const SUBJECTS_PER_GET = 5;
// Slots that left their window are swept this often (one `kv.list` of the due markers).
const SWEEP_INTERVAL_MS = 5_000;
// Reads in flight at once during a refresh, and mutations per atomic (KV takes at most 1,000).
const READS_IN_FLIGHT = 16;
const MUTATIONS_PER_ATOMIC = 500;

/** A subject in memory: its slots (see `SlotLedger`) and when they were read and used. */
interface Subject {
  policy: LimitPolicy;
  id: string;
  ledger: SlotLedger;
  /** When, and at which slot, the whole window was last listed. */
  listed: { at: number; slot: number };
  /** When it was last used: while that is recent, each tick refreshes it in the background. */
  usedAt: number;
  loading: Promise<void> | null;
}

/**
 * Request budgets shared by every instance without a KV write or read per request. A decision
 * uses the last-read shared slot counts plus this instance's unflushed admissions; `sync()`, a
 * background job of routes/deps.ts every SYNC_INTERVAL_MS, commits the admissions as `sum`s in one
 * atomic and re-reads the subjects in use, one `kv.list` over each subject's window. Each instance can therefore admit
 * what it has not yet seen of the others: see the overshoot bound in docs/rate-limits.md.
 */
export class SharedRateLimiter {
  #subjects = new Map<string, Subject>();
  #lastSync: Promise<void> = Promise.resolve();
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
        ledger: new SlotLedger(policy.windowMs),
        listed: { at: -Infinity, slot: -Infinity },
        usedAt: -Infinity,
        loading: null,
      };
      this.#subjects.set(id, subject);
    }
    subject.usedAt = this.now();
    while (true) {
      const now = this.now();
      if (now - subject.ledger.readAt <= MAX_VIEW_AGE_MS) {
        const decision = subject.ledger.take(now, policy.limit);
        // A read slower than the idle limit may have let a tick drop it meanwhile: keep it, or
        // this admission would never be flushed.
        if (decision.allowed) this.#subjects.set(id, subject);
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
    for (const subject of this.#subjects.values()) total += subject.ledger.pending;
    return total;
  }

  async #syncOnce() {
    await this.#flush();
    const now = this.now();
    const active: Subject[] = [];
    for (const [key, subject] of this.#subjects) {
      if (subject.loading) continue;
      if (now - subject.usedAt <= ACTIVE_MS) {
        active.push(subject);
      } else if (subject.ledger.pending === 0) {
        // Idle and fully in KV: its next use would re-read anyway, so memory holds only the
        // subjects of the last second or two, however many addresses come and go.
        this.#subjects.delete(key);
      }
    }
    const reads: (() => Promise<void>)[] = [];
    const newest: Subject[] = [];
    for (const subject of active) {
      const slot = slotIndex(now, subject.policy.windowMs);
      if (now - subject.listed.at > FULL_READ_MS || slot !== subject.listed.slot) {
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
  }

  /** Sends every unsent admission as `sum`s, in as few atomics as KV allows. */
  async #flush() {
    const outboxes = [];
    const mutations: Deno.KvMutation[] = [];
    for (const subject of this.#subjects.values()) {
      const outbox = subject.ledger.send();
      if (outbox.writes.length === 0) continue;
      outboxes.push(outbox);
      const { name, windowMs } = subject.policy;
      for (const { index, count, first } of outbox.writes) {
        // This instance's first write to the slot: have it swept once it leaves the window.
        if (first) {
          const leavesAt = slotLeavesAt(index, windowMs);
          mutations.push(dueMarker({ leavesAt, policy: name, subject: subject.id, index }));
        }
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
        await this.#commit(mutations.slice(i, i + MUTATIONS_PER_ATOMIC));
      }
    } catch (error) {
      // Unsent again: the next tick retries. (With several chunks, a chunk that did land is
      // counted again: an over-count, the safe direction.)
      for (const outbox of outboxes.reverse()) outbox.settle(false);
      for (const ride of riders) ride.settle(false);
      throw error;
    }
    for (const outbox of outboxes) outbox.settle(true);
    for (const ride of riders) ride.settle(true);
  }

  /** The limiter's one write to KV: a chunk of a flush's mutations, unchecked. */
  async #commit(mutations: Deno.KvMutation[]): Promise<void> {
    const res = await commit(this.kv.atomic().mutate(...mutations));
    if (!res.ok) throw new Error("rate-limit counters were not committed");
  }

  /** Reads the slots of a subject's window (and the next one) in one `kv.list`. */
  #list(subject: Subject): Promise<void> {
    const now = this.now();
    const { name, windowMs } = subject.policy;
    const read = subject.ledger.beginRead(firstSlot(now, windowMs), slotIndex(now, windowMs) + 1);
    const loading = (async () => {
      const found = new Map<number, number>();
      const entries = this.kv.list<Deno.KvU64>({
        start: rateLimits.slot(name, subject.id, read.from),
        end: rateLimits.slot(name, subject.id, read.to + 1),
      });
      for await (const { key, value } of entries) found.set(key[3] as number, Number(value.value));
      subject.listed = { at: now, slot: read.to - 1 };
      read.apply(found, now);
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
      return { subject, read: subject.ledger.beginRead(current - 1, current) };
    });
    const keys = plan.flatMap(({ subject, read }) => [
      rateLimits.slot(subject.policy.name, subject.id, read.from),
      rateLimits.slot(subject.policy.name, subject.id, read.to),
    ]);
    const loading = this.kv.getMany<Deno.KvU64[]>(keys).then((entries) => {
      plan.forEach(({ read }, i) => {
        const found = new Map<number, number>();
        for (const [j, index] of [read.from, read.to].entries()) {
          const value = entries[i * 2 + j].value;
          if (value) found.set(index, Number(value.value));
        }
        read.apply(found, now);
      });
    }).finally(() => {
      for (const { subject } of plan) subject.loading = null;
    });
    for (const { subject } of plan) subject.loading = loading;
    return loading;
  }
}
