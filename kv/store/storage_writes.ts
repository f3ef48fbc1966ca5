/**
 * Whether this process's store takes writes: a commit refused for want of disk space marks it
 * full, the next commit that succeeds marks it writable again. Read by /health and by the one
 * warning logged per episode.
 */
import { AppError } from "../../domain/errors.ts";
import type { Logger } from "../../io/log.ts";

// SQLite's SQLITE_FULL ("database or disk is full") as Deno's backend words it, and the OS's
// ENOSPC should a layer below report it as such.
const FULL = /database or disk is full|SQLITE_FULL|no space left on device/i;

/** True for an error that says the store has no room for the write. */
export function isStorageFullError(error: unknown): boolean {
  return error instanceof Error && FULL.test(error.message);
}

let full = false;
let warned = false;

export const storageWrites = {
  /** True while the last write outcome seen was a refusal for want of space. */
  get full(): boolean {
    return full;
  },
  /** A commit failed with a full store. */
  refused(): void {
    full = true;
  },
  /** A commit went through: the store takes writes again. True when this ends a full episode. */
  succeeded(): boolean {
    if (!full) return false;
    full = false;
    warned = false;
    return true;
  },
  /** True once per full episode: whoever gets it logs the condition. */
  takeWarning(): boolean {
    if (!full || warned) return false;
    warned = true;
    return true;
  },
};

/**
 * True for a write refused for want of space, raw or as the commit helper's `STORAGE_FULL`; the
 * first of an episode is logged as one warning, the rest are the same condition and are not.
 */
export function noteStorageFull(log: Logger, error: unknown, fields: Record<string, unknown> = {}) {
  const full = (error instanceof AppError && error.code === "STORAGE_FULL") ||
    isStorageFullError(error);
  if (!full) return false;
  storageWrites.refused();
  if (storageWrites.takeWarning()) {
    log.warn(
      "the store is out of space: writes answer 503 STORAGE_FULL until space is freed",
      fields,
    );
  }
  return true;
}
