/**
 * The shared rate limiter's policy types and tuning: lease length, block shares, sync and sweep
 * intervals (used by `kv/rate_limit/rate_limit.ts`, which re-exports the public ones).
 */
import type { SliceRule } from "../../domain/rate_limit/lease_claims.ts";
import type { WindowLimit } from "../../domain/rate_limit/rate_window.ts";

/** A named budget: `limit` requests per sliding window of `windowMs`. */
export interface LimitPolicy extends WindowLimit {
  name: string;
}

/**
 * Other counters that ride on the limiter's flushes instead of writing on their own (per-key
 * usage): each flush takes their mutations into its atomics and settles them with the outcome.
 */
export interface FlushRider {
  send(): FlushGroup;
}

/** Mutations that commit together, and what to do once they did or did not. */
export interface FlushGroup {
  mutations: Deno.KvMutation[];
  settle(ok: boolean): void;
}

/** How often a running limiter gives back ended leases and renews the leases in use. */
export const SYNC_INTERVAL_MS = 100;
/**
 * The longest a lease is spent from. Longer means fewer grants for a subject in steady use, and
 * more units lost when an instance dies holding them (docs/rate-limits.md, "A dead instance").
 */
export const LEASE_MS = 1_000;
// A block is at most this share of what the window has left, so that instances that come late to
// a subject still find units, and the last units go one at a time.
export const SHARE = 8;
// A block of at most this share of what is left lasts to its slot's end instead of LEASE_MS: a
// key used now and then waits for a grant about once a minute, not once a request.
export const LASTING_SHARE = SHARE * SHARE;
// A subject used within this time has its lease renewed ahead of need by the background, so a
// request in steady traffic never waits for a grant.
export const ACTIVE_MS = 1_000;
export const RENEW_AHEAD_MS = 2 * SYNC_INTERVAL_MS;
// Slots that left their window are swept this often (one `kv.list` of the due markers).
export const SWEEP_INTERVAL_MS = 5_000;
// Unspent units of a slot that leaves its window sooner than this are not given back (they stay
// counted until it leaves): a give-back landing on a slot already swept would wrap around.
export const KEEP_MS = 10 * 60_000;
// Blocks are claimed a slice at a time: a quarter of the block, at least 16 units (a block of 16
// or fewer is claimed whole at its grant and has no record). A dead instance keeps counted at most
// what it spent and a slice and a half; smaller slices cost a commit more per slice raised.
export const SLICES: SliceRule = { min: 16, parts: 4 };
// Run-out leases a grant reclaims at most: with its version check, within denokv's 10 checks.
export const MAX_RECLAIMS = 8;
// Mutations per atomic (KV takes at most 1,000), and grant attempts before a request fails.
export const MUTATIONS_PER_ATOMIC = 500;
// Background renewals in flight at once, so that a tick with many subjects in use does not flood KV.
export const GRANTS_IN_FLIGHT = 16;
export const GRANT_ROUNDS = 100;
// A window read ahead of a decision stands for the decision's own read only this long after it.
export const PREFETCH_MS = SYNC_INTERVAL_MS;
