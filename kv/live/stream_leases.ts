/**
 * At most MAX_STREAMS open streams per account, exact across workers and instances. Each open
 * stream holds a lease record (`live.stream`) that its process renews; one that is not renewed
 * runs out (its process died) and stops counting. Admission reads the account's leases and
 * commits under a check of a version marker every admission moves (as exact limits do,
 * kv/rate_limit/exact_limit.ts), so two admissions never both count the same free slot; it
 * deletes the run-out leases it discounts under a check of each, so a late renewal of one fails
 * and its stream ends instead of making a sixth.
 */
import { MAX_STREAMS, STREAM_LEASE_MS } from "../../domain/live/live_rules.ts";
import { AppError } from "../../domain/errors.ts";
import { commit, MAX_CHECK_ROUNDS } from "../commit.ts";
import { live } from "../keyspace.ts";
import { KV_LIMITS } from "../store/limits.ts";
import type { TicketRecord } from "./tickets.ts";

/** A lease as stored. */
export interface LeaseRecord {
  until: number;
  openedAt: number;
}

/** A lease as its holder knows it: renewals check its versionstamp. */
export interface HeldLease {
  key: Deno.KvKey;
  versionstamp: string;
  openedAt: number;
}

/** Run-out leases one admission deletes at most, beside its own checks. */
const MAX_RECLAIMS = KV_LIMITS.checks - 2;

const ticketInvalid = () =>
  new AppError("TICKET_INVALID", "The stream ticket is unknown, used or expired; get a new one");

/**
 * Admits a new stream of `userId` at `now`, consuming `ticket` in the same atomic when given:
 * 429 STREAM_LIMIT when the account holds MAX_STREAMS live leases, 401 TICKET_INVALID when
 * another stream took the ticket first.
 */
export async function admitStream(
  kv: Deno.Kv,
  admission: { userId: string; now: () => number; ticket?: Deno.KvKey },
): Promise<HeldLease> {
  const { userId } = admission;
  const key = live.stream(userId, crypto.randomUUID());
  for (let round = 0; round < MAX_CHECK_ROUNDS; round++) {
    const now = admission.now();
    const reads: Deno.KvKey[] = [live.streamsVersion(userId)];
    if (admission.ticket) reads.push(admission.ticket);
    const [version, ticket] = await kv.getMany(reads) as [
      Deno.KvEntryMaybe<unknown>,
      Deno.KvEntryMaybe<TicketRecord> | undefined,
    ];
    if (ticket && (!ticket.value || ticket.value.expiresAt <= now)) throw ticketInvalid();
    const leases: Deno.KvEntry<LeaseRecord>[] = [];
    for await (const entry of kv.list<LeaseRecord>({ prefix: live.streamsPrefix(userId) })) {
      leases.push(entry);
    }
    const ended = leases.filter((l) => l.value.until <= now).slice(0, MAX_RECLAIMS);
    if (leases.length - ended.length >= MAX_STREAMS) {
      throw new AppError(
        "STREAM_LIMIT",
        `The account has ${MAX_STREAMS} open streams, the most it may hold; close one first`,
        { headers: { "Retry-After": String(Math.ceil(STREAM_LEASE_MS / 1000)) } },
      );
    }
    const op = kv.atomic().check(version).set(live.streamsVersion(userId), key[2]);
    for (const lease of ended) op.check(lease).delete(lease.key);
    if (ticket) op.check(ticket).delete(ticket.key);
    const record: LeaseRecord = { until: now + STREAM_LEASE_MS, openedAt: now };
    op.set(key, record, { expireIn: STREAM_LEASE_MS * 2 });
    const result = await commit(op);
    if (result.ok) return { key, openedAt: now, versionstamp: result.versionstamp };
  }
  throw new AppError("CONFLICT", "Too many streams opened at once; try again");
}

/**
 * Renews `leases` to `until`, up to ten in one atomic (one check each); answers those lost (run
 * out and taken, or deleted), whose streams must end. The others' versionstamps are updated.
 */
export async function renewLeases(
  kv: Deno.Kv,
  leases: HeldLease[],
  until: number,
): Promise<HeldLease[]> {
  const lost: HeldLease[] = [];
  for (let i = 0; i < leases.length; i += KV_LIMITS.checks) {
    const group = leases.slice(i, i + KV_LIMITS.checks);
    if (await renewGroup(kv, group, until)) continue;
    // One of them is lost: each alone, to find which.
    for (const lease of group) if (!await renewGroup(kv, [lease], until)) lost.push(lease);
  }
  return lost;
}

async function renewGroup(kv: Deno.Kv, group: HeldLease[], until: number): Promise<boolean> {
  const op = kv.atomic();
  for (const lease of group) {
    op.check(lease);
    op.set(lease.key, { until, openedAt: lease.openedAt } satisfies LeaseRecord, {
      expireIn: STREAM_LEASE_MS * 2,
    });
  }
  const result = await commit(op);
  if (!result.ok) return false;
  for (const lease of group) lease.versionstamp = result.versionstamp;
  return true;
}

/** Gives a closed stream's slot back at once. */
export async function releaseLease(kv: Deno.Kv, lease: HeldLease): Promise<void> {
  await commit(kv.atomic().check(lease).delete(lease.key));
}
