/**
 * The output-bound floor of matching one task, for bench:alerts: the least any matcher must do for
 * the matches a task has, whatever its index. Finding: read exactly the matched alerts' index
 * entries, packed into as few values as KV allows, and decode them. Recording: commit exactly the
 * match keys with their events and jobs, packed into as few atomics as KV's limits allow.
 */
import { newEvent } from "../../domain/webhooks/event.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import {
  decodePage,
  encodePage,
  type IndexedAlert,
  indexedOf,
  PAGE_BYTES,
} from "../../kv/alerts/pages.ts";
import type { Match } from "../../kv/alerts/match_parts.ts";
import { commit } from "../../kv/commit.ts";
import { queueEvent } from "../../kv/effects.ts";
import { alerts } from "../../kv/keyspace.ts";
import {
  encodedKeyBytes,
  encodedValueBytes,
  GETMANY_MAX,
  KV_LIMITS,
} from "../../kv/store/limits.ts";

const encoder = new TextEncoder();

/**
 * Writes `matched` (the entries a task matched) as word pages of a prefix no word can have, packed
 * to PAGE_BYTES; answers their keys, for `readFloor`, and `clear` to delete them after.
 */
export async function packFloor(
  kv: Deno.Kv,
  run: { taskId: string; matched: IndexedAlert[] },
): Promise<{ keys: Deno.KvKey[]; clear: () => Promise<void> }> {
  const pages: IndexedAlert[][] = [[]];
  let bytes = 16;
  for (const entry of run.matched) {
    const size = encoder.encode(JSON.stringify(entry)).byteLength + 1;
    if (bytes + size > PAGE_BYTES) {
      pages.push([]);
      bytes = 16;
    }
    pages[pages.length - 1].push(entry);
    bytes += size;
  }
  const keys = pages.map((_, n) => alerts.wordPage(`floor ${run.taskId}`, n));
  for (let i = 0; i < keys.length; i += 10) {
    const op = kv.atomic();
    for (let n = i; n < Math.min(keys.length, i + 10); n++) {
      op.set(keys[n], encodePage({ entries: pages[n] }));
    }
    await commit(op);
  }
  const clear = async () => {
    const op = kv.atomic();
    for (const key of keys) op.delete(key);
    await commit(op);
  };
  return { keys, clear };
}

/** The finding floor: every packed page at once, ten to a `getMany`, decoded. */
export async function readFloor(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<IndexedAlert[]> {
  const groups: Deno.KvKey[][] = [];
  for (let i = 0; i < keys.length; i += GETMANY_MAX) groups.push(keys.slice(i, i + GETMANY_MAX));
  const read = await Promise.all(groups.map((g) => kv.getMany<Uint8Array[]>(g)));
  return read.flat().flatMap((e) => decodePage(e.value).entries.map(indexedOf));
}

type Mutation = { name: "set" | "delete"; args: unknown[]; keyBytes: number; bytes: number };

/** An atomic that only notes what is added to it, to replay exactly. */
function collector(into: Mutation[]): Deno.AtomicOperation {
  const add = (name: Mutation["name"]) => (...args: unknown[]) => {
    const key = args[0] as Deno.KvKey;
    const keyBytes = encodedKeyBytes(key);
    const bytes = keyBytes + (name === "set" ? encodedValueBytes(args[1]) : 0);
    into.push({ name, args, keyBytes, bytes });
    return op;
  };
  const op = { set: add("set"), delete: add("delete") } as unknown as Deno.AtomicOperation;
  return op;
}

/**
 * What recording `matches` must commit at least, grouped into as few atomics as KV's limits allow
 * (greedily, in order; a match's writes stay together): its match key, and for an owner in
 * `listening` the event's body and its fan-out job. Built before the clock starts.
 */
export function floorAtomics(
  run: { task: TaskRecord; matches: Match[]; listening: Set<string>; now: number },
): Mutation[][] {
  const groups: Mutation[][] = [[]];
  const tally = { mutations: 0, bytes: 0, keyBytes: 0 };
  for (const { alert, item } of run.matches) {
    const own: Mutation[] = [];
    const op = collector(own);
    op.set(alerts.match(alert.id, run.task.orderKey), run.task.id);
    if (run.listening.has(alert.userId)) {
      const event = newEvent("task.matched", { alertId: alert.id, task: item }, run.now);
      queueEvent(op, alert.userId, event);
    }
    const keyBytes = own.reduce((s, m) => s + m.keyBytes, 0);
    const bytes = own.reduce((s, m) => s + m.bytes, 0);
    if (
      tally.mutations + own.length > KV_LIMITS.mutations ||
      tally.bytes + bytes > KV_LIMITS.totalBytes ||
      tally.keyBytes + keyBytes > KV_LIMITS.totalKeyBytes
    ) {
      groups.push([]);
      Object.assign(tally, { mutations: 0, bytes: 0, keyBytes: 0 });
    }
    groups[groups.length - 1].push(...own);
    tally.mutations += own.length;
    tally.bytes += bytes;
    tally.keyBytes += keyBytes;
  }
  return groups.filter((g) => g.length > 0);
}

/** The recording floor: the atomics of `floorAtomics`, committed all at once. */
export async function commitFloor(kv: Deno.Kv, atomics: Mutation[][]): Promise<void> {
  await Promise.all(atomics.map(async (group) => {
    const op = kv.atomic();
    for (const m of group) {
      if (m.name === "set") {
        op.set(m.args[0] as Deno.KvKey, m.args[1], m.args[2] as { expireIn?: number });
      } else op.delete(m.args[0] as Deno.KvKey);
    }
    if (!(await commit(op)).ok) throw new Error("a floor atomic failed");
  }));
}
