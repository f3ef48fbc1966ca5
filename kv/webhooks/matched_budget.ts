/**
 * What one task's matching can make an account send: `task.matched` deliveries an account may
 * start per sliding minute, exact across instances (the exact-limit machinery). Past it a
 * fan-out waits for the window to free, never drops; the security log says so once a window.
 */
import type { WindowDecision } from "../../domain/rate_limit/rate_window.ts";
import { SERVICE_ORIGIN } from "../../domain/security_log.ts";
import { commit } from "../commit.ts";
import { webhooks } from "../keyspace.ts";
import { takeExact } from "../rate_limit/exact_limit.ts";
import type { LimitPolicy } from "../rate_limit/rate_limit_rules.ts";
import { recordSecurity } from "../security_log.ts";

const WINDOW_MS = 60_000;

function policyOf(perMinute: number): LimitPolicy {
  return { name: "matched_deliveries", limit: perMinute, windowMs: WINDOW_MS };
}

/**
 * Takes one delivery from the account's budget; when none is left, notes it in the security log
 * (once a window) and answers when to try again.
 */
export async function takeMatchedDelivery(
  kv: Deno.Kv,
  use: { userId: string; perMinute: number; now: number },
): Promise<{ allowed: true } | { allowed: false; retryAt: number }> {
  const decision: WindowDecision = await takeExact(kv, {
    policy: policyOf(use.perMinute),
    subject: use.userId,
    now: use.now,
  });
  if (decision.allowed) return { allowed: true };
  const note = webhooks.matchedBudgetNote(use.userId);
  const op = kv.atomic().check({ key: note, versionstamp: null })
    .set(note, use.now, { expireIn: WINDOW_MS });
  recordSecurity(op, use.userId, {
    type: "webhook.deliveries_delayed",
    origin: SERVICE_ORIGIN,
    reason: `more than ${use.perMinute} task.matched deliveries in a minute`,
    now: use.now,
  });
  await commit(op);
  return { allowed: false, retryAt: Math.max(decision.resetAt, use.now + 1) };
}
