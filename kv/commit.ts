/**
 * The one way a KV write is committed: transient store failures (another worker or process
 * holding SQLite's write lock) are retried with bounded, jittered backoff; a failed check goes
 * back to the caller's loop (`atomically`) or ends as a typed conflict, never as a silent success.
 */
import { AppError } from "../domain/errors.ts";
import { isStorageFullError, storageWrites } from "./store/storage_writes.ts";

// Deno's SQLite backend fails a checked atomic at once with "database is locked" when another
// connection wrote since its read began; no busy timeout applies, so the retry is ours. These are
// SQLite's words for "busy, try again"; anything else is a real error and is not retried.
const TRANSIENT = /database is locked|database is busy|SQLITE_BUSY/i;

// How long a transient failure is retried before it is reported. Two workers creating flat out
// on one file see long tails of busy retries (bench:http); a 500 after this long means the store
// is wedged, not busy.
const TRANSIENT_BUDGET_MS = 15_000;
const BASE_DELAY_MS = 2;
const MAX_DELAY_MS = 100;
/** Rounds of re-read and retry after failed checks, before the conflict is the caller's. */
export const MAX_CHECK_ROUNDS = 20;

/** True for store failures that a retry of the same operation may get past. */
export function isTransientStoreError(error: unknown): boolean {
  return error instanceof Error && TRANSIENT.test(error.message);
}

/** Full jitter: a random wait up to an exponentially growing ceiling. */
function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/**
 * Runs a store call, retrying it while it fails transiently (for up to TRANSIENT_BUDGET_MS); any other
 * error, or a transient one past the budget, is thrown as it came. Safe for commits: a commit
 * that failed this way wrote nothing, and an atomic can be committed again as it is.
 */
export async function retryTransient<T>(call: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let attempt = 0;; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isTransientStoreError(error) || Date.now() - started > TRANSIENT_BUDGET_MS) throw error;
      await backoff(attempt);
    }
  }
}

const afterCommitHooks = new WeakMap<Deno.AtomicOperation, (() => void)[]>();

/** Runs `hook` once `op` has committed through `commit` (a job written wakes its runners). */
export function afterCommit(op: Deno.AtomicOperation, hook: () => void) {
  const hooks = afterCommitHooks.get(op);
  if (hooks) hooks.push(hook);
  else afterCommitHooks.set(op, [hook]);
}

/** How long a client is asked to wait when the store is full: freeing space takes an operator. */
export const STORAGE_FULL_RETRY_AFTER_S = 60;

/** The answer to a write the store has no room for: a 503 the client may retry, not a 500. */
export function storageFull(): AppError {
  return new AppError("STORAGE_FULL", "The store is out of space and takes no writes for now", {
    headers: { "Retry-After": String(STORAGE_FULL_RETRY_AFTER_S) },
  });
}

/**
 * Commits `op`, retrying transient failures; `{ ok: false }` means a check failed. A store out of
 * space (which wrote nothing, so the atomic may be sent again later) throws `STORAGE_FULL`.
 */
export async function commit(
  op: Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  let result: Deno.KvCommitResult | Deno.KvCommitError;
  try {
    result = await retryTransient(() => op.commit());
  } catch (error) {
    if (!isStorageFullError(error)) throw error;
    storageWrites.refused();
    throw storageFull();
  }
  if (result.ok) {
    storageWrites.succeeded();
    for (const hook of afterCommitHooks.get(op) ?? []) hook();
  }
  return result;
}

/** What one round of `atomically` decided: a value, and the atomic to commit for it, if any. */
export interface Round<T> {
  value: T;
  /** Absent: nothing to write, the value is the answer as read. */
  op?: Deno.AtomicOperation;
}

/**
 * Read-modify-write under versionstamp checks: `round` reads, decides and builds an atomic; when
 * the atomic's checks fail (someone wrote in between) the round runs again on fresh reads, after
 * a short jittered pause so that workers contending for one record spread out. Past
 * `MAX_CHECK_ROUNDS` the caller's conflict message becomes a 409 `CONFLICT`.
 */
export async function atomically<T>(
  conflictMessage: string,
  round: () => Promise<Round<T>>,
): Promise<T> {
  for (let attempt = 0; attempt < MAX_CHECK_ROUNDS; attempt++) {
    const { value, op } = await round();
    if (!op) return value;
    if ((await commit(op)).ok) return value;
    await backoff(attempt);
  }
  throw new AppError("CONFLICT", conflictMessage);
}
