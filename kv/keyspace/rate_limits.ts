/** Rate-limit keys: the sliding window's slots, version markers, leases and cleanup markers. */

/**
 * Rate-limit counters: a Deno.KvU64 per policy, subject and slot (a sixtieth of the window), so a
 * subject's window is one range; the boolean version marker sorts after every (number) slot.
 */
export const rateLimits = {
  slot: (policy: string, subject: string, index: number): Deno.KvKey => [
    "rate_slots",
    policy,
    subject,
    index,
  ],
  prefix: (policy: string, subject?: string): Deno.KvKey =>
    subject === undefined ? ["rate_slots", policy] : ["rate_slots", policy, subject],
  /** Bumped by every exact count of a subject, checked by exact takes to serialize them. */
  version: (policy: string, subject: string): Deno.KvKey => ["rate_slots", policy, subject, false],
  /** A lease's record (its claim mark): after the version marker, so listed with the slots. */
  lease: (policy: string, subject: string, id: string): Deno.KvKey => [
    "rate_slots",
    policy,
    subject,
    false,
    id,
  ],
  /** Past every slot and the version marker: the exclusive end of a subject's listing. */
  end: (policy: string, subject: string): Deno.KvKey => ["rate_slots", policy, subject, true],
  /** A slot's cleanup marker (sums cannot expire), by when it leaves: a sweep lists due ones. */
  due: (leavesAt: number, policy: string, subject: string, index: number): Deno.KvKey => [
    "rate_slots_due",
    leavesAt,
    policy,
    subject,
    index,
  ],
  dueStart: (): Deno.KvKey => ["rate_slots_due"],
  /** Past every marker due at or before `at` (a boolean sorts after the policy's string). */
  dueEnd: (at: number): Deno.KvKey => ["rate_slots_due", at, true],
};
