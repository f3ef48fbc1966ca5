/**
 * The accounts whose endpoints select `task.matched`, in 64 shards by a hash of the account id:
 * kept exact by every endpoint change (webhooks.ts), built at start-up in a store written before
 * them, and read by a task's matching (kv/alerts/match_parts.ts): a few shards, not a subscription
 * per owner matched.
 */
import { selects } from "../../domain/webhooks/event.ts";
import { commit } from "../commit.ts";
import type { Subscription } from "../effects.ts";
import { webhooks } from "../keyspace.ts";
import { getEntries } from "../store/get_all.ts";
import { keptOnHandle } from "../store/handle.ts";
import { GETMANY_MAX } from "../store/limits.ts";
import { Recent } from "../store/recent.ts";

const SHARDS = 64;
/** Past this, a shard stops holding ids (`overflow`): its accounts' subscriptions are read. */
const SHARD_BYTES = 56_000;
const MEMO = Symbol("task.matched listeners");

/** A shard: its listening accounts, sorted; or `overflow`, too many to hold. */
export interface ListenerShard {
  ids: string[];
  overflow?: true;
}

/** Whether an account with `events` selected hears `task.matched`. */
export function hearsMatches(events: readonly string[] | undefined): boolean {
  return selects(events ?? [], "task.matched");
}

/** The shard of `userId`: 32 bits of FNV-1a, the same in every run. */
export function shardOf(userId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) h = Math.imul(h ^ userId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SHARDS;
}

const encoder = new TextEncoder();

function shardValue(ids: Iterable<string>): ListenerShard {
  const sorted = [...new Set(ids)].sort();
  const value: ListenerShard = { ids: sorted };
  return encoder.encode(JSON.stringify(value)).byteLength > SHARD_BYTES
    ? { ids: [], overflow: true }
    : value;
}

/**
 * Adds to `op` that `userId` now hears `task.matched` or no longer does, under a check of its
 * shard as read: two such changes in one shard never both commit on the same reading.
 */
export async function writeListener(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  change: { userId: string; hears: boolean },
): Promise<void> {
  const entry = await kv.get<ListenerShard>(webhooks.matchedListeners(shardOf(change.userId)));
  op.check(entry);
  if (entry.value?.overflow) return;
  const ids = new Set(entry.value?.ids ?? []);
  if (change.hears) ids.add(change.userId);
  else ids.delete(change.userId);
  op.set(entry.key, shardValue(ids));
}

/** This handle's knowledge: whether the shards are complete; each shard version's ids. */
interface Memory {
  built: boolean;
  shards: Recent<ReadonlySet<string>>;
}

function memoryOf(kv: Deno.Kv): Memory {
  return keptOnHandle(kv, MEMO, () => ({
    built: false,
    shards: new Recent<ReadonlySet<string>>(SHARDS * 4, SHARDS * 4, () => 1),
  }));
}

/** Whether this instance found the shards complete (at start-up, or once it built them). */
export function listenersBuilt(kv: Deno.Kv): boolean {
  return memoryOf(kv).built;
}

/**
 * Which of `owners` hear `task.matched`, by their shards (one `getMany` per ten shards); those in
 * a shard that overflowed are left out of `hears` and listed in `unknown`.
 */
export async function hearingAmong(
  kv: Deno.Kv,
  owners: readonly string[],
): Promise<{ hears: Map<string, boolean>; unknown: string[]; reads: number }> {
  const memo = memoryOf(kv).shards;
  const shards = [...new Set(owners.map(shardOf))];
  const read = await getEntries<ListenerShard>(kv, shards.map(webhooks.matchedListeners));
  const byShard = new Map<number, ReadonlySet<string> | null>();
  for (const [i, shard] of shards.entries()) {
    const entry = read[i];
    if (entry.value?.overflow) {
      byShard.set(shard, null);
      continue;
    }
    const id = `${shard}@${entry.versionstamp}`;
    let ids = memo.get(id);
    if (!ids) memo.set(id, ids = new Set(entry.value?.ids ?? []));
    byShard.set(shard, ids);
  }
  const hears = new Map<string, boolean>();
  const unknown: string[] = [];
  for (const owner of owners) {
    const ids = byShard.get(shardOf(owner));
    if (ids) hears.set(owner, ids.has(owner));
    else unknown.push(owner);
  }
  return { hears, unknown, reads: Math.ceil(shards.length / GETMANY_MAX) };
}

/** At start-up: whether the shards are complete, remembered on the handle. */
export async function lookForListeners(kv: Deno.Kv): Promise<boolean> {
  const mark = await kv.get(webhooks.matchedListenersBuilt());
  return memoryOf(kv).built = mark.value !== null;
}

/** True when two shard values hold the same accounts (or both overflowed). */
function sameShard(a: ListenerShard | null, b: ListenerShard): boolean {
  if (!a) return false;
  if (a.overflow || b.overflow) return !!a.overflow && !!b.overflow;
  return a.ids.length === b.ids.length && a.ids.every((id, i) => id === b.ids[i]);
}

/**
 * Fills the shards from every subscription, then marks them complete. Each shard is read before
 * the subscriptions are listed and written under a check of that reading, holding what it held
 * (accounts changed since endpoint changes began keeping it) and every listener listed: a change
 * in between fails the check, and the whole pass runs again; a shard that would hold what it holds
 * is not written (a store without subscriptions gets its mark alone). Workers starting together on
 * one store build at once: a shard another builder already wrote as this one would is no change,
 * and a store another instance marked built meanwhile is left as it is.
 */
export async function buildListeners(kv: Deno.Kv): Promise<void> {
  const keys = Array.from({ length: SHARDS }, (_, s) => webhooks.matchedListeners(s));
  for (let pass = 0; pass < 10; pass++) {
    if (await lookForListeners(kv)) return;
    const before = await getEntries<ListenerShard>(kv, keys);
    const listed = new Map<number, string[]>();
    for await (const entry of kv.list<Subscription>({ prefix: webhooks.subscriptionsRoot() })) {
      if (!hearsMatches(entry.value.events)) continue;
      const userId = entry.key[1] as string;
      listed.set(shardOf(userId), [...listed.get(shardOf(userId)) ?? [], userId]);
    }
    let whole = true;
    for (const [shard, entry] of before.entries()) {
      if (entry.value?.overflow) continue;
      const value = shardValue([...entry.value?.ids ?? [], ...listed.get(shard) ?? []]);
      if (sameShard(entry.value ?? { ids: [] }, value)) continue;
      if ((await commit(kv.atomic().check(entry).set(entry.key, value))).ok) continue;
      // Only a shard now holding something else (an endpoint change since the reading) needs
      // the pass again.
      if (!sameShard((await kv.get<ListenerShard>(entry.key)).value, value)) whole = false;
    }
    if (whole) {
      await commit(kv.atomic().set(webhooks.matchedListenersBuilt(), true));
      memoryOf(kv).built = true;
      return;
    }
  }
  throw new Error("the task.matched listeners changed too often to build");
}
