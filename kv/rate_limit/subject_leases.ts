/**
 * One subject's round trips for its leases, each one at a time: a grant (a read of the window and
 * a block committed in a checked atomic) and the raise of a lease's claim mark.
 */
import { commit } from "../commit.ts";
import type { Grant } from "../../domain/rate_limit/lease_ledger_types.ts";
import type { WindowDecision } from "../../domain/rate_limit/rate_window.ts";
import { readWindow } from "./exact_limit.ts";
import { grantAtomic, raiseClaim } from "./lease_records.ts";
import { leaseSubject, type Subject } from "./rate_subject.ts";
import { GRANT_ROUNDS, PREFETCH_MS, SYNC_INTERVAL_MS } from "./rate_limit_rules.ts";

/** The store and clock the round trips run on (the limiter's). */
export interface LeaseStore {
  kv: Deno.Kv;
  now: () => number;
}

/**
 * Leases a block: reads the window and adds the block to its current slot in an atomic checked
 * against the subject's version marker, which every grant moves, so that no two grants on any
 * instances pass the limit together. Resolves to the refusal when the window has no unit left.
 */
export function grantLease(
  store: LeaseStore,
  subject: Subject,
  limit: number,
): Promise<WindowDecision | null> {
  const { policy, id, ledger } = subject;
  const run = async () => {
    for (let round = 0;; round++) {
      let now = store.now();
      // A read started ahead, moments ago (by this request's key lookup), stands for this one.
      const ahead = subject.prefetched;
      subject.prefetched = null;
      const fresh = ahead !== null && now - ahead.at <= PREFETCH_MS;
      if (fresh) now = ahead.at;
      const read = await (fresh
        ? ahead.read.catch(() =>
          readWindow(store.kv, { policy, subject: id, now: now = store.now() })
        )
        : readWindow(store.kv, { policy, subject: id, now }));
      const plan = ledger.plan({
        counts: read.counts,
        now,
        limit,
        recheckMs: SYNC_INTERVAL_MS,
        records: read.records.map(({ key, value }) => ({ ...value, id: key[4] as string })),
      });
      if (!isGrant(plan)) {
        return plan;
      }
      const { op, record } = grantAtomic(store.kv, {
        ...leaseSubject(subject),
        read,
        plan,
        now,
        marked: subject.marked,
      });
      let result: Deno.KvCommitResult | Deno.KvCommitError | null = null;
      try {
        result = await commit(op);
      } finally {
        if (!result?.ok) {
          ledger.abandon(plan);
        }
      }
      if (result.ok) {
        if (plan.block > 0) {
          subject.marked = Math.max(subject.marked, plan.slot);
        }
        ledger.granted(plan, now, record ? { id: record, stamp: result.versionstamp } : null);
        return null;
      }
      if (round >= GRANT_ROUNDS) {
        throw new Error("rate-limit lease kept conflicting");
      }
      // Another instance granted in between: read again after a short, spread-out pause.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.random() * Math.min(20, round))
      );
    }
  };
  const granting = run().finally(() => {
    subject.granting = null;
  });
  subject.granting = granting;
  return granting;
}

/**
 * Raises a live lease's claim mark by a slice when it is due (`force`: when its claimed units
 * are all spent and requests wait), in an atomic checked against its record: a record reclaimed
 * meanwhile (its lease ran out, as another instance's clock tells) fails it, and the lease is
 * then spent no further than it had claimed.
 */
export function claimLease(store: LeaseStore, subject: Subject, force: boolean): Promise<void> {
  if (subject.claiming) return subject.claiming;
  const due = subject.ledger.claimDue(store.now(), force);
  if (!due) return Promise.resolve();
  const { lease, to } = due;
  const run = async () => {
    let outcome: { to: number; stamp: string | null } | "lost" = "lost";
    try {
      outcome = await raiseClaim(store.kv, {
        ...leaseSubject(subject),
        lease,
        to,
        now: store.now(),
      });
    } catch {
      // Unknown whether it committed: spent no further than claimed (a grant reports the error).
    } finally {
      subject.ledger.claimSettled(lease, outcome);
    }
  };
  const claiming = run().finally(() => {
    subject.claiming = null;
  });
  subject.claiming = claiming;
  return claiming;
}

function isGrant(plan: Grant | WindowDecision): plan is Grant {
  return "block" in plan;
}
