/**
 * Request budgets (the hot path) shared by every instance through counters in KV: admissions are
 * counted in memory and flushed as `sum` mutations in one atomic per tick. The exact limits of
 * rare actions are in `kv/exact_limit.ts`.
 */
import {
  bucketIndex,
  decide,
  type WindowCounts,
  type WindowDecision,
} from "../domain/rate_window.ts";
import { rateLimits } from "./keys.ts";

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
// longer (or a new bucket) costs a read on the request path.
const MAX_STALE_MS = 1_000;
// Deno KV takes at most 10 keys per getMany (5 subjects × 2 buckets) and 1,000 mutations per
// atomic; a tick's sums are chunked below that.
const SUBJECTS_PER_READ = 5;
const MUTATIONS_PER_ATOMIC = 500;

/** One fixed bucket of one subject, as this instance knows it. */
interface Bucket {
  /** The count in KV at the last read. */
  shared: number;
  /** Requests this instance admitted into the bucket, ever. */
  noted: number;
  /** Of those, handed to a flush (committed or in flight). */
  sent: number;
  /** Of those, committed to KV. */
  committed: number;
  /** `committed` when the last read began: later commits may be missing from `shared`. */
  committedAtRead: number;
}

interface Subject {
  policy: LimitPolicy;
  id: string;
  buckets: Map<number, Bucket>;
  /** The bucket index the last read was for (it read that bucket and the one before). */
  readBucket: number;
  readAt: number;
  /** When it was last used: while that is recent, each tick refreshes it in the background. */
  usedAt: number;
  loading: Promise<void> | null;
  /** Buckets below this have been deleted from KV by this instance. */
  cleanedBelow: number;
}

function newBucket(): Bucket {
  return { shared: 0, noted: 0, sent: 0, committed: 0, committedAtRead: 0 };
}

/** Shared count plus this instance's admissions that the shared count may not hold yet. */
function bucketCount(bucket: Bucket | undefined): number {
  return bucket ? bucket.shared + bucket.noted - bucket.committedAtRead : 0;
}

function bucketOf(subject: Subject, index: number): Bucket {
  let bucket = subject.buckets.get(index);
  if (!bucket) subject.buckets.set(index, bucket = newBucket());
  return bucket;
}

/**
 * Request budgets shared by every instance without a KV write per request. A decision uses the
 * last-read shared count plus this instance's unflushed admissions; `sync()` (every
 * SYNC_INTERVAL_MS while `run` is on) commits the admissions as `sum`s in one atomic and re-reads
 * the shared counts of subjects in use. Each instance can therefore admit what it has not yet seen
 * of the others: see the README's overshoot bound.
 */
export class SharedRateLimiter {
  #subjects = new Map<string, Subject>();
  #lastSync: Promise<void> = Promise.resolve();
  #syncing = false;

  constructor(private readonly kv: Deno.Kv, private readonly now: () => number) {}

  /** Decides one request of `subjectId` under `policy`, counting it when allowed. */
  async take(policy: LimitPolicy, subjectId: string): Promise<WindowDecision> {
    const id = `${policy.name}\u0000${subjectId}`;
    let subject = this.#subjects.get(id);
    if (!subject) {
      subject = {
        policy,
        id: subjectId,
        buckets: new Map(),
        readBucket: -Infinity,
        readAt: -Infinity,
        usedAt: -Infinity,
        loading: null,
        cleanedBelow: -Infinity,
      };
      this.#subjects.set(id, subject);
    }
    subject.usedAt = this.now();
    while (true) {
      const now = this.now();
      const index = bucketIndex(now, policy.windowMs);
      if (subject.readBucket === index && now - subject.readAt <= MAX_STALE_MS) {
        const counts: WindowCounts = {
          previous: bucketCount(subject.buckets.get(index - 1)),
          current: bucketCount(subject.buckets.get(index)),
        };
        const decision = decide(counts, now, policy.windowMs, policy.limit);
        if (decision.allowed) {
          bucketOf(subject, index).noted++;
          // A read slower than the idle limit may have let a tick drop it meanwhile: keep it, or
          // this admission would never be flushed.
          this.#subjects.set(id, subject);
        }
        return decision;
      }
      await (subject.loading ?? this.#load([subject]));
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
      for (const bucket of subject.buckets.values()) total += bucket.noted - bucket.committed;
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
        } else if ([...subject.buckets.values()].every((b) => b.noted === b.committed)) {
          // Idle and fully in KV: its next use would re-read anyway, so memory holds only the
          // subjects of the last second or two, however many addresses come and go.
          this.#subjects.delete(key);
        }
      }
      const reads: Promise<void>[] = [];
      for (let i = 0; i < stale.length; i += SUBJECTS_PER_READ) {
        reads.push(this.#load(stale.slice(i, i + SUBJECTS_PER_READ)));
      }
      await Promise.all(reads);
    } finally {
      this.#syncing = false;
    }
  }

  /** Sends every unsent admission as `sum`s, in as few atomics as KV allows. */
  async #flush() {
    const batch: { bucket: Bucket; count: number }[] = [];
    const mutations: Deno.KvMutation[] = [];
    for (const subject of this.#subjects.values()) {
      const { name } = subject.policy;
      for (const [index, bucket] of subject.buckets) {
        const count = bucket.noted - bucket.sent;
        if (count <= 0) continue;
        bucket.sent += count;
        batch.push({ bucket, count });
        mutations.push({
          type: "sum",
          key: rateLimits.bucket(name, subject.id, index),
          value: new Deno.KvU64(BigInt(count)),
        });
        // Sums cannot expire, so the first flush into a bucket deletes the one that left the
        // window; a subject then keeps at most two counters in KV.
        if (subject.cleanedBelow < index - 1) {
          subject.cleanedBelow = index - 1;
          mutations.push({ type: "delete", key: rateLimits.bucket(name, subject.id, index - 2) });
        }
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
      for (const { bucket, count } of batch) bucket.sent -= count;
      throw error;
    }
    for (const { bucket, count } of batch) bucket.committed += count;
  }

  /** Reads the current and previous bucket of each subject in one getMany. */
  #load(subjects: Subject[]): Promise<void> {
    const now = this.now();
    const plan = subjects.map((subject) => {
      const index = bucketIndex(now, subject.policy.windowMs);
      const buckets = [bucketOf(subject, index - 1), bucketOf(subject, index)];
      return { subject, index, buckets, marks: buckets.map((b) => b.committed) };
    });
    const keys = plan.flatMap(({ subject, index }) => [
      rateLimits.bucket(subject.policy.name, subject.id, index - 1),
      rateLimits.bucket(subject.policy.name, subject.id, index),
    ]);
    const loading = this.kv.getMany<Deno.KvU64[]>(keys).then((entries) => {
      plan.forEach(({ subject, index, buckets, marks }, i) => {
        buckets.forEach((bucket, j) => {
          bucket.shared = Number(entries[i * 2 + j].value?.value ?? 0n);
          bucket.committedAtRead = marks[j];
        });
        for (const [old, bucket] of subject.buckets) {
          if (old < index - 1 && bucket.noted === bucket.committed) subject.buckets.delete(old);
        }
        subject.readBucket = index;
        subject.readAt = now;
      });
    }).finally(() => {
      for (const { subject } of plan) subject.loading = null;
    });
    for (const { subject } of plan) subject.loading = loading;
    return loading;
  }
}
