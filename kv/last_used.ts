/**
 * Keeps API keys' `lastUsedAt` within a minute of the truth without a storage write per request:
 * uses are noted in memory and written in batches, at most once a minute per key.
 */
import { recordLastUsed } from "./api_keys.ts";

const MINUTE = 60_000;
/** How often `main.ts` flushes the buffer. */
export const FLUSH_INTERVAL_MS = 10_000;
// A use is queued once the stored time is this far behind; with the flush delay on top, the
// stored time is never more than a minute behind the truth.
const REFRESH_AFTER_MS = MINUTE - FLUSH_INTERVAL_MS;

export class LastUsedBuffer {
  #pending = new Map<string, { userId: string; keyId: string; at: string }>();
  #written = new Map<string, number>();

  constructor(private readonly kv: Deno.Kv) {}

  /** Notes a use; it is queued only when the stored time is close to a minute behind. */
  note(userId: string, keyId: string, storedLastUsed: string | null, now: number) {
    const known = Math.max(
      storedLastUsed ? Date.parse(storedLastUsed) : 0,
      this.#written.get(keyId) ?? 0,
    );
    if (now - known < REFRESH_AFTER_MS) return;
    this.#pending.set(keyId, { userId, keyId, at: new Date(now).toISOString() });
  }

  /** Writes every pending use. */
  async flush() {
    if (this.#pending.size === 0) return;
    const uses = [...this.#pending.values()];
    this.#pending.clear();
    for (const use of uses) this.#written.set(use.keyId, Date.parse(use.at));
    await recordLastUsed(this.kv, uses);
  }
}
