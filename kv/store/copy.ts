/**
 * Copies every entry of one store into another (`deno task kv:copy`): in key order, in atomics
 * within the strictest backend's limits, each carrying a progress marker, so that a copy cut
 * short resumes after the last batch the target holds.
 */
import { commit } from "../commit.ts";
import { meta } from "../keyspace.ts";
import { encodedKeyBytes, encodedValueBytes, KV_LIMITS } from "./limits.ts";

/** Where a copy stands; stored in the target at `meta.copyProgress()` with every batch. */
export interface CopyProgress {
  /** The source as it was named: a resume from another source would leave a hole. */
  source: string;
  /** The last key copied; the next batch starts after it. */
  lastKey: Deno.KvKey | null;
  entries: number;
  /** Bytes of keys and values copied, as the store encodes them. */
  bytes: number;
  batches: number;
  startedAt: string;
}

/** Why a copy cannot start or go on; its message says what to do. */
export class CopyError extends Error {
  override name = "CopyError";
}

export interface CopyOptions {
  from: Deno.Kv;
  to: Deno.Kv;
  /** How the source was named (its path or URL), kept in the marker. */
  source: string;
  /** Entries per atomic at most (fewer when their bytes fill it first). */
  batchEntries?: number;
  /** Called after each committed batch, before the next is read, with what this run copied. */
  onBatch?: (progress: CopyProgress, entriesThisRun: number) => void | Promise<void>;
  now?: () => Date;
}

export interface CopyResult extends CopyProgress {
  /** True when this run picked up a copy an earlier run left unfinished. */
  resumed: boolean;
}

/** Room left in every atomic for the marker: its key, and its value with a key of up to 2 KiB. */
const MARKER_ROOM = 4 * 1024;
export const MAX_BATCH_ENTRIES = KV_LIMITS.mutations - 1;
const MAX_BATCH_BYTES = KV_LIMITS.totalBytes - MARKER_ROOM;
const MAX_BATCH_KEY_BYTES = KV_LIMITS.totalKeyBytes - MARKER_ROOM;

function sameKey(a: Deno.KvKey, b: Deno.KvKey): boolean {
  return a.length === b.length && a.every((part, i) => {
    const other = b[i];
    if (part instanceof Uint8Array && other instanceof Uint8Array) {
      return part.length === other.length && part.every((byte, j) => byte === other[j]);
    }
    return part === other;
  });
}

async function isEmpty(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: [] }, { limit: 1 })) return false;
  return true;
}

/**
 * Copies every entry of `from` into `to` (which assigns new versionstamps), or resumes the copy
 * the target's marker describes. The target must be empty or hold that marker; the source must
 * not change meanwhile (stop the service first). Values are copied exactly, Deno.KvU64 included;
 * expiry times are not (KV does not say them).
 */
export async function copyStore(options: CopyOptions): Promise<CopyResult> {
  const { from, to, source } = options;
  const batchEntries = Math.min(options.batchEntries ?? 500, MAX_BATCH_ENTRIES);
  const now = options.now ?? (() => new Date());
  const markerKey = meta.copyProgress();

  if ((await from.get(markerKey)).versionstamp !== null) {
    throw new CopyError(
      "the source holds an unfinished copy's marker: finish that copy into it first",
    );
  }
  let marker = await to.get<CopyProgress>(markerKey);
  const resumed = marker.value !== null;
  if (marker.value && marker.value.source !== source) {
    throw new CopyError(
      `the target holds an unfinished copy from ${marker.value.source}: resume it with ` +
        `--from ${marker.value.source}, or copy into an empty store`,
    );
  }
  if (!marker.value && !(await isEmpty(to))) {
    throw new CopyError("the target is not empty: copy into a new, empty store");
  }
  const progress: CopyProgress = marker.value ?? {
    source,
    lastKey: null,
    entries: 0,
    bytes: 0,
    batches: 0,
    startedAt: now().toISOString(),
  };

  const entriesBefore = progress.entries;
  let op = to.atomic();
  let count = 0;
  let bytes = 0;
  let keyBytes = 0;
  let last: Deno.KvKey | null = null;
  const flush = async () => {
    if (count === 0) return;
    const next: CopyProgress = {
      ...progress,
      lastKey: last,
      entries: progress.entries + count,
      bytes: progress.bytes + bytes,
      batches: progress.batches + 1,
    };
    // Checked against the marker as read: a second copy into the same target fails here.
    const result = await commit(op.check(marker).set(markerKey, next));
    if (!result.ok) throw new CopyError("another copy is writing to the target");
    marker = { key: markerKey, value: next, versionstamp: result.versionstamp };
    Object.assign(progress, next);
    op = to.atomic();
    count = bytes = keyBytes = 0;
    await options.onBatch?.({ ...progress }, progress.entries - entriesBefore);
  };

  const selector = progress.lastKey
    ? { prefix: [], start: progress.lastKey }
    : { prefix: [] as Deno.KvKey };
  for await (const entry of from.list(selector, { batchSize: batchEntries })) {
    if (progress.lastKey && sameKey(entry.key, progress.lastKey)) continue;
    const entryKeyBytes = encodedKeyBytes(entry.key);
    const entryBytes = entryKeyBytes + encodedValueBytes(entry.value);
    if (
      count === batchEntries || bytes + entryBytes > MAX_BATCH_BYTES ||
      keyBytes + entryKeyBytes > MAX_BATCH_KEY_BYTES
    ) await flush();
    op.set(entry.key, entry.value);
    count++;
    bytes += entryBytes;
    keyBytes += entryKeyBytes;
    last = entry.key;
  }
  await flush();
  const done = await commit(to.atomic().check(marker).delete(markerKey));
  if (!done.ok) throw new CopyError("another copy is writing to the target");
  return { ...progress, resumed };
}
