/**
 * A flush's commits: groups of give-backs (and riders' counts) packed into as few atomics as the
 * mutation limit allows, each group settled by whether its atomic committed.
 */
import { commit } from "../commit.ts";
import { type FlushGroup, MUTATIONS_PER_ATOMIC } from "./rate_limit_rules.ts";

/**
 * Commits `groups` in order. A group is never split across atomics unless it alone is too large
 * (a rider's counts, which then may be counted twice: the safe direction for usage); a give-back
 * never is. On a failure the groups not committed are settled `false` (they go again at the next
 * flush) and the error is thrown.
 */
export async function commitFlushGroups(kv: Deno.Kv, groups: FlushGroup[]): Promise<void> {
  let next = 0;
  try {
    while (next < groups.length) {
      const chunk = [groups[next++]];
      let size = chunk[0].mutations.length;
      while (
        next < groups.length && size + groups[next].mutations.length <= MUTATIONS_PER_ATOMIC
      ) {
        size += groups[next].mutations.length;
        chunk.push(groups[next++]);
      }
      try {
        const mutations = chunk.flatMap((g) => g.mutations);
        for (let i = 0; i < mutations.length; i += MUTATIONS_PER_ATOMIC) {
          const op = kv.atomic().mutate(...mutations.slice(i, i + MUTATIONS_PER_ATOMIC));
          if (!(await commit(op)).ok) throw new Error("rate-limit give-backs were not committed");
        }
      } catch (error) {
        next -= chunk.length;
        throw error;
      }
      for (const group of chunk) group.settle(true);
    }
  } catch (error) {
    for (const group of groups.slice(next)) group.settle(false);
    throw error;
  }
}
