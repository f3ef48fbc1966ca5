/**
 * Per-key usage figures in KV: the series a range answers with, and the pruning that keeps only
 * what the ranges show (hours for 7 days, days for 90). The counters are written by
 * `kv/api_keys/usage_counter.ts`, folded into the rate limiter's flushes.
 */
import {
  bucketStart,
  oldestKept,
  type Outcome,
  RANGES,
  rangeStart,
  toSeries,
  type UsageRange,
  type UsageSeries,
  type UsageUnit,
} from "../../domain/usage.ts";
import { commit } from "../commit.ts";
import { apiKeyUsage } from "../keyspace.ts";

const DELETES_PER_ATOMIC = 500;

/** The series of `range` ending at `now` for one key: one `kv.list` of its buckets. */
export async function readUsage(
  kv: Deno.Kv,
  keyId: string,
  range: UsageRange,
  now: number,
): Promise<UsageSeries> {
  const { unit } = RANGES[range];
  const counts = new Map<number, Partial<Record<Outcome, number>>>();
  const entries = kv.list<Deno.KvU64>({
    start: apiKeyUsage.from(keyId, unit, rangeStart(range, now)),
    end: apiKeyUsage.from(keyId, unit, bucketStart(unit, now) + 1),
  });
  for await (const { key, value } of entries) {
    const start = key[3] as number;
    const bucket = counts.get(start) ?? {};
    bucket[key[4] as Outcome] = Number(value.value);
    counts.set(start, bucket);
  }
  return toSeries(range, counts, now);
}

/** Deletes the listed entries in as few atomics as KV allows. */
async function deleteAll(kv: Deno.Kv, entries: Deno.KvListIterator<unknown>) {
  let batch: Deno.KvKey[] = [];
  const send = async () => {
    if (batch.length === 0) return;
    const op = kv.atomic();
    for (const key of batch) op.delete(key);
    await commit(op);
    batch = [];
  };
  for await (const { key } of entries) {
    batch.push(key);
    if (batch.length >= DELETES_PER_ATOMIC) await send();
  }
  await send();
}

/** Deletes a key's buckets that no range shows any more. */
export async function pruneUsage(kv: Deno.Kv, keyId: string, now: number) {
  for (const unit of ["hour", "day"] as UsageUnit[]) {
    await deleteAll(
      kv,
      kv.list({
        start: apiKeyUsage.from(keyId, unit, -Infinity),
        end: apiKeyUsage.from(keyId, unit, oldestKept(unit, now)),
      }),
    );
  }
}

/** Deletes every bucket of a key (revocation: its figures are never shown again). */
export async function deleteUsage(kv: Deno.Kv, keyId: string) {
  await deleteAll(kv, kv.list({ prefix: apiKeyUsage.prefix(keyId) }));
}
