/**
 * Exact rate limits for rare actions (key creation, failed logins): each use reads the counts and
 * writes KV, in one checked atomic where the limit must hold under concurrency.
 */
import {
  bucketIndex,
  decide,
  type WindowCounts,
  type WindowDecision,
} from "../domain/rate_window.ts";
import { AppError } from "../domain/errors.ts";
import { rateLimits } from "./keys.ts";
import type { LimitPolicy } from "./rate_limit.ts";

const MAX_ATTEMPTS = 20;

async function readCounts(
  kv: Deno.Kv,
  policy: LimitPolicy,
  subject: string,
  index: number,
) {
  const [previous, current] = await kv.getMany<Deno.KvU64[]>([
    rateLimits.bucket(policy.name, subject, index - 1),
    rateLimits.bucket(policy.name, subject, index),
  ]);
  const counts: WindowCounts = {
    previous: Number(previous.value?.value ?? 0n),
    current: Number(current.value?.value ?? 0n),
  };
  return { counts, current };
}

/**
 * An exact limit for rare actions: the count is read and, when allowed, bumped in one atomic
 * checked against the read, so concurrent callers on any instance never pass the limit.
 */
export async function takeExact(
  kv: Deno.Kv,
  policy: LimitPolicy,
  subject: string,
  now: number,
): Promise<WindowDecision> {
  const index = bucketIndex(now, policy.windowMs);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { counts, current } = await readCounts(kv, policy, subject, index);
    const decision = decide(counts, now, policy.windowMs, policy.limit);
    if (!decision.allowed) return decision;
    const res = await kv.atomic()
      .check(current)
      .sum(rateLimits.bucket(policy.name, subject, index), 1n)
      .delete(rateLimits.bucket(policy.name, subject, index - 2))
      .commit();
    if (res.ok) return decision;
  }
  throw new AppError("CONFLICT", "Too many concurrent requests to complete; try again");
}

/** What `takeExact` would answer, without counting anything. */
export async function peekExact(
  kv: Deno.Kv,
  policy: LimitPolicy,
  subject: string,
  now: number,
): Promise<WindowDecision> {
  const index = bucketIndex(now, policy.windowMs);
  const { counts } = await readCounts(kv, policy, subject, index);
  return decide(counts, now, policy.windowMs, policy.limit);
}

/** Counts one event (a failed login) against `policy`, unconditionally. */
export async function countExact(
  kv: Deno.Kv,
  policy: LimitPolicy,
  subject: string,
  now: number,
) {
  const index = bucketIndex(now, policy.windowMs);
  await kv.atomic()
    .sum(rateLimits.bucket(policy.name, subject, index), 1n)
    .delete(rateLimits.bucket(policy.name, subject, index - 2))
    .commit();
}
