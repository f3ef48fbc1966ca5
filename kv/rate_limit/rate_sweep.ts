/**
 * Cleanup of rate-limit slots that have left their window. KV `sum`s cannot carry `expireIn`, so
 * whoever first writes a slot also writes a due marker keyed by when the slot leaves, and a sweep
 * deletes the slots whose markers are due, however long ago their subject was last seen.
 */
import { commit } from "../commit.ts";
import { rateLimits } from "../keyspace.ts";

const MUTATIONS_PER_ATOMIC = 900;

/** The marker that gets `key`'s slot deleted once it has left the window, at `leavesAt`. */
export function dueMarker(
  slot: { leavesAt: number; policy: string; subject: string; index: number },
): Deno.KvMutation {
  const { leavesAt, policy, subject, index } = slot;
  return { type: "set", key: rateLimits.due(leavesAt, policy, subject, index), value: null };
}

/**
 * Deletes up to `max` slots that left their window before `now`, with their markers and their
 * subjects' exact-take version markers (a deleted version only makes a concurrent exact take
 * retry). Safe to run on every instance at once: deletes are idempotent. Returns how many.
 */
export async function sweepRateSlots(kv: Deno.Kv, now: number, max = 3_000): Promise<number> {
  const mutations: Deno.KvMutation[] = [];
  let swept = 0;
  const due = kv.list<null>({ prefix: rateLimits.dueStart(), end: rateLimits.dueEnd(now) }, {
    limit: max,
  });
  for await (const { key } of due) {
    const [, , policy, subject, index] = key as [string, number, string, string, number];
    mutations.push(
      { type: "delete", key: rateLimits.slot(policy, subject, index) },
      { type: "delete", key: rateLimits.version(policy, subject) },
      { type: "delete", key },
    );
    swept++;
  }
  for (let i = 0; i < mutations.length; i += MUTATIONS_PER_ATOMIC) {
    await commit(kv.atomic().mutate(...mutations.slice(i, i + MUTATIONS_PER_ATOMIC)));
  }
  return swept;
}
