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
