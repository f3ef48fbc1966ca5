/**
 * The planner's counter reads: fresh ones, each key once a plan and the keys of one turn in one
 * getMany, remembered as they are read; or the instance's memory alone, for a plan from memory;
 * and the payment classes' first lists sized by the counts remembered.
 */
import type { CounterReader } from "./driver.ts";
import { DOC_COST, type Work } from "../scan/work.ts";
import { GETMANY_MAX } from "../../store/limits.ts";
import { keyId } from "../../key_id.ts";
import type { PlanMemory } from "../shared/plan_memory.ts";
import { Payment } from "../../../domain/tasks/task.ts";
import { explore } from "../../keyspace.ts";

/**
 * A counter reader for one plan: drivers overlap (the geo driver and the zones read the same
 * cell counters, the payment and zone shares the same class counters), so each key is read once.
 * Keys asked for in the same turn share their `getMany` calls: the planner's drivers ask one after
 * another, and a call costs the server far more than a key.
 */
export function counterReader(kv: Deno.Kv, work: Work, memory: PlanMemory): CounterReader {
  const read = new Map<string, Promise<number>>();
  let queued: { id: string; key: Deno.KvKey; settle: (n: Promise<number>) => void }[] = [];
  const flush = () => {
    const group = queued;
    queued = [];
    for (let i = 0; i < group.length; i += GETMANY_MAX) {
      const part = group.slice(i, i + GETMANY_MAX);
      const values = kv.getMany<Deno.KvU64[]>(part.map((q) => q.key));
      part.forEach((q, j) =>
        q.settle(values.then((v) => {
          const n = v[j].value ? Number(v[j].value.value) : 0;
          memory.counters.set(q.id, n);
          return n;
        }))
      );
    }
  };
  return (keys) => {
    let fresh = 0;
    for (const key of keys) {
      const id = keyId(key);
      if (read.has(id)) continue;
      fresh++;
      if (queued.length === 0) queueMicrotask(flush);
      read.set(id, new Promise((settle) => queued.push({ id, key, settle })));
    }
    work.units += fresh * DOC_COST;
    return Promise.all(keys.map((k) => read.get(keyId(k))!));
  };
}

/**
 * A counter reader over the instance's memory alone, for a plan that reads nothing: a counter
 * not remembered reads 0 and sets `missed`, and the plan is then no guess at all.
 */
export function rememberedCounters(memory: PlanMemory, dry: { missed: boolean }): CounterReader {
  return (keys) => {
    const values = keys.map((key) => {
      const n = memory.counters.get(keyId(key));
      if (n === undefined) dry.missed = true;
      return n ?? 0;
    });
    return Promise.resolve(values);
  };
}

/**
 * First lists of the payment classes merged by a page that reads no counters: each holds the
 * page's expected depth (`first`), unless the instance remembers the classes' counts, which size
 * each to its share of the `expected` documents the page reads, with a margin of two standard
 * deviations (a list cut short costs a round trip, an entry too many only its read): the
 * pro-bono class, a quarter of the tasks, then lists far fewer entries.
 */
export function classBatches(
  memory: PlanMemory,
  classes: Payment[],
  { first, expected }: { first: number; expected: number },
): number[] {
  if (classes.length < 2) return classes.map(() => first);
  const counts = classes.map((c) => memory.counters.get(keyId(explore.countByPayment(c))));
  const total = counts.reduce<number>((sum, n) => sum + (n ?? 0), 0);
  if (counts.some((n) => n === undefined) || total === 0) return classes.map(() => first);
  return counts.map((n) => {
    const mean = expected * n! / total;
    return Math.min(first, Math.ceil(mean + 2 * Math.sqrt(mean)) + 2);
  });
}

/**
 * Plans between fresh reads of the payment classes' counts by an instance that remembers them:
 * they only price the drivers and size the other filters' pass rates, which a count a few
 * pages old sizes as well, and the two keys were a fifth of a circle's counter reads.
 */
export const CLASS_COUNTS_REFRESH = 64;

/**
 * Both payment classes' counts for a plan: remembered, where the instance has read them within
 * its last `CLASS_COUNTS_REFRESH` plans, else read with the plan's other counters.
 */
export function classCounts(counts: CounterReader, memory: PlanMemory): Promise<number[]> {
  const keys = Payment.options.map((c) => explore.countByPayment(c));
  const known = keys.map((key) => memory.counters.get(keyId(key)));
  const due = memory.classCountsAge++ % CLASS_COUNTS_REFRESH === 0;
  if (!due && known.every((n) => n !== undefined)) return Promise.resolve(known as number[]);
  memory.classCountsAge = 1;
  return counts(keys);
}

/**
 * Reads the payment classes' counts into the instance's memory where it lacks them, beside a
 * page that reads no counters (not waited for): the next such page sizes its classes' first lists
 * by them (`classBatches`). Other plans read them anyway; a page by a name alone does not.
 */
export function learnClassCounts(kv: Deno.Kv, memory: PlanMemory): void {
  const keys = [...Payment.options].map((c) => explore.countByPayment(c));
  if (keys.every((key) => memory.counters.get(keyId(key)) !== undefined)) return;
  kv.getMany<Deno.KvU64[]>(keys).then((values) =>
    values.forEach((v, i) =>
      memory.counters.set(keyId(keys[i]), v.value ? Number(v.value.value) : 0)
    )
  ).catch(() => {});
}
