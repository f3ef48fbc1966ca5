/**
 * Request budgets (the hot path) kept exact on any number of instances: each instance leases
 * blocks of units from a subject's shared window in a checked atomic, spends them in memory, and
 * gives back what is left at the flush after the lease ends. The exact limits of rare actions
 * (one atomic per use) are in `kv/rate_limit/exact_limit.ts`.
 */
import { AsyncResource } from "node:async_hooks";
import { AppError } from "../../domain/errors.ts";
import type { SliceRule } from "../../domain/rate_limit/lease_claims.ts";
import type { WindowDecision } from "../../domain/rate_limit/rate_window.ts";
import { readWindow } from "./exact_limit.ts";
import { commitFlushGroups } from "./flush_groups.ts";
import { giveBack, reclaimOwn } from "./lease_records.ts";
import { claimLease, grantLease, type LeaseStore } from "./subject_leases.ts";
import { leaseSubject, newSubject, type Subject } from "./rate_subject.ts";
import { sweepRateSlots } from "./rate_sweep.ts";
import {
  ACTIVE_MS,
  type FlushGroup,
  type FlushRider,
  GRANTS_IN_FLIGHT,
  type LimitPolicy,
  RENEW_AHEAD_MS,
  SWEEP_INTERVAL_MS,
} from "./rate_limit_rules.ts";

/**
 * Request budgets shared by every instance, exact on any number of them, without a KV write or
 * read per request: a decision spends a unit of a lease held in memory; only a new lease (a
 * `kv.list` of the window and an atomic checked against it) and a give-back (a `sum` in the flush)
 * reach KV. Every admitted request was counted in KV before it was admitted.
 */
export class SharedRateLimiter {
  #subjects = new Map<string, Subject>();
  #lastSync: Promise<void> = Promise.resolve();
  #sweptAt = -Infinity;
  #riders: FlushRider[] = [];
  /**
   * Runs work outside the request that started it (a claim raised ahead): no request waits for it,
   * and a request's traced round trips (kv/store/latency.ts) do not count it.
   */
  #detached = AsyncResource.bind((work: () => void) => work());
  /** The store and clock a subject's grants and claims run on (kv/rate_limit/subject_leases.ts). */
  readonly #store: LeaseStore;

  /**
   * `options.slices`: how blocks are claimed ahead (null: whole at the grant, as before claim
   * marks; for the cost bench's comparison).
   */
  constructor(
    private readonly kv: Deno.Kv,
    private readonly now: () => number,
    private readonly options: { slices?: SliceRule | null } = {},
  ) {
    this.#store = { kv, now };
  }

  /** Decides one request of `subjectId` under `policy`, counting it when allowed. */
  async take(policy: LimitPolicy, subjectId: string): Promise<WindowDecision> {
    const id = `${policy.name}\u0000${subjectId}`;
    const subject = this.#subject(policy, subjectId);
    subject.usedAt = this.now();
    // The latest limit (a PATCH of a key's own) is the one its background renewals ask under.
    subject.policy = policy;
    while (true) {
      const decision = subject.ledger.spend(this.now(), policy.limit);
      if (decision) {
        // A tick may have dropped it while the grant ran: keep it, or its lease is never given back.
        if (decision.allowed) {
          this.#subjects.set(id, subject);
          // Half the slice spent: the next one is claimed in the background, nobody waits for it.
          if (!subject.claiming && subject.ledger.claimWanted(this.now())) {
            this.#detached(() => claimLease(this.#store, subject, false).catch(() => {}));
          }
        }
        return decision;
      }
      if (subject.ledger.waitsForClaim(this.now())) {
        await claimLease(this.#store, subject, true);
        continue;
      }
      let refused: WindowDecision | null;
      try {
        refused = await (subject.granting ?? grantLease(this.#store, subject, policy.limit));
      } catch (error) {
        // A full disk takes no lease: a worker holding none would refuse every read it serves,
        // turning a full store into an outage of reads. Let through uncounted until space is back.
        if (error instanceof AppError && error.code === "STORAGE_FULL") {
          return uncounted(policy, this.now());
        }
        throw error;
      }
      if (refused) return refused;
    }
  }

  /**
   * True when a decision of `subjectId` can be made from memory (a lease to spend, or a recent
   * refusal); false when it waits for a grant (a read of the window and a commit).
   */
  inHand(policy: LimitPolicy, subjectId: string): boolean {
    const subject = this.#subjects.get(`${policy.name}\u0000${subjectId}`);
    return subject?.ledger.canSpend(this.now(), policy.limit) ?? false;
  }

  /**
   * Starts reading `subjectId`'s window ahead of its first decision, beside another read (a key's
   * record), when that decision would need one: its grant then only commits. Only the policy's
   * name and window matter here; its limit is the decision's.
   */
  prefetch(policy: LimitPolicy, subjectId: string): void {
    const subject = this.#subject(policy, subjectId);
    const now = this.now();
    if (subject.granting || subject.prefetched || subject.ledger.canSpend(now, policy.limit)) {
      return;
    }
    subject.usedAt = now;
    const read = readWindow(this.kv, { policy, subject: subjectId, now });
    read.catch(() => {}); // a failed read is read again by the grant
    subject.prefetched = { at: now, read };
  }

  #subject(policy: LimitPolicy, subjectId: string): Subject {
    const id = `${policy.name}\u0000${subjectId}`;
    let subject = this.#subjects.get(id);
    if (!subject) {
      subject = newSubject(policy, subjectId, this.options.slices);
      this.#subjects.set(id, subject);
    }
    return subject;
  }

  /** Gives back ended leases and renews those in use; `all`: gives back every lease (a pause). */
  sync(all = false): Promise<void> {
    const next = this.#lastSync.catch(() => {}).then(() => this.#syncOnce(all));
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

  /** Units leased and not yet spent or given back (of one policy's), for tests and shutdown checks. */
  pending(policy?: string): number {
    let total = 0;
    for (const subject of this.#subjects.values()) {
      if (policy !== undefined && subject.policy.name !== policy) continue;
      total += subject.ledger.held + subject.ledger.returning;
    }
    return total;
  }

  async #syncOnce(all: boolean) {
    await this.#flush(all);
    const now = this.now();
    const renewals: Subject[] = [];
    for (const [key, subject] of this.#subjects) {
      // A refusal is answered again only until the tick: then other instances' give-backs and
      // the window's slide are read.
      subject.ledger.forgetRefusal();
      if (subject.granting) continue;
      const active = now - subject.usedAt <= ACTIVE_MS;
      if (!active && subject.ledger.leases === 0) {
        // Idle and holding nothing: its next use reads the window anyway.
        this.#subjects.delete(key);
      } else if (active && !all && subject.ledger.wantsRenewal(now, RENEW_AHEAD_MS)) {
        renewals.push(subject);
      }
    }
    const renewers = Array.from(
      { length: Math.min(GRANTS_IN_FLIGHT, renewals.length) },
      async () => {
        for (let s = renewals.pop(); s; s = renewals.pop()) {
          if (!s.granting) await grantLease(this.#store, s, s.policy.limit);
        }
      },
    );
    await Promise.all(renewers);
    if (now - this.#sweptAt >= SWEEP_INTERVAL_MS) {
      this.#sweptAt = now;
      await sweepRateSlots(this.kv, now);
    }
  }

  /** Gives back the unspent units of ended leases, with the riders' mutations. */
  async #flush(all: boolean) {
    const now = this.now();
    const groups: FlushGroup[] = [];
    const own: Promise<void>[] = [];
    if (all) await Promise.all([...this.#subjects.values()].map((s) => s.claiming));
    for (const subject of this.#subjects.values()) {
      const { backs, records, settle } = subject.ledger.giveBack(now, all);
      // At a pause: this instance's own records go too, so their unclaimed units are back now.
      for (const reclaim of records) {
        own.push(
          reclaimOwn(this.kv, { ...leaseSubject(subject), reclaim }).then((ok: boolean) => {
            if (ok) subject.ledger.reclaimed(reclaim);
          }),
        );
      }
      if (backs.length === 0) continue;
      const mutations = backs.map((back) => giveBack(leaseSubject(subject), back));
      groups.push({ mutations, settle });
    }
    for (const rider of this.#riders) groups.push(rider.send());
    try {
      await commitFlushGroups(this.kv, groups);
    } finally {
      await Promise.allSettled(own);
    }
  }
}

/** A request let through without a lease (the store takes no writes): a fresh window's answer. */
function uncounted(policy: LimitPolicy, now: number): WindowDecision {
  return {
    allowed: true,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - 1),
    resetAt: now + policy.windowMs,
    resetSeconds: Math.max(1, Math.ceil(policy.windowMs / 1000)),
  };
}
