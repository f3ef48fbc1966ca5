/**
 * The store-wide "something changed for these accounts" marks of live streams: each account
 * belongs to one of SIGNAL_SHARDS shards, whose signal key every atomic that raises an event for
 * it, or changes a credential its streams act as, rewrites blind (no check: writers never
 * conflict). A process watches or polls these few keys once, whatever its number of streams.
 */
import { live } from "../keyspace.ts";

/**
 * Shards of the signal. More shards wake fewer idle accounts per change (a process reads the
 * `raised` mark of each account of a moved shard it serves); fewer keep the watch or poll small
 * (a watch or a `getMany` takes ten keys: sixteen are two of each) and spread writes enough that
 * no one key takes every event of the store. Changing it changes the layout: every process of a
 * store must agree on it.
 */
export const SIGNAL_SHARDS = 16;

/** The shard of `userId`: FNV-1a of its text, so every process and version agrees. */
export function shardOf(userId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    hash ^= userId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % SIGNAL_SHARDS;
}

/** Every shard's signal key, by shard. */
export function signalKeys(): Deno.KvKey[] {
  return Array.from({ length: SIGNAL_SHARDS }, (_, shard) => live.signal(shard));
}

// A key set twice in one atomic is refused by some stores: a shard is signalled once per atomic.
const signalledIn = new WeakMap<Deno.AtomicOperation, Set<number>>();

/**
 * Adds to `op` the signal of `userId`'s shard: processes with streams of the account look at it
 * once `op` commits. At most one mutation (none when `op` already signals the shard).
 */
export function signalAccount(op: Deno.AtomicOperation, userId: string) {
  const shard = shardOf(userId);
  let shards = signalledIn.get(op);
  if (!shards) signalledIn.set(op, shards = new Set());
  if (shards.has(shard)) return;
  shards.add(shard);
  op.set(live.signal(shard), true);
}
