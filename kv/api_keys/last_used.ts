/**
 * Keeps API keys' `lastUsedAt` (and `lastUsedIp`, the address of that use) within a minute of the
 * truth without a storage write per request: uses are noted in memory and written in batches, at
 * most once a minute per key.
 */
import type { ApiKeyRecord } from "../../domain/api_key.ts";
import { recordLastUsed } from "./api_keys.ts";

const MINUTE = 60_000;
/** How often the background job (`routes/router/deps.ts`) flushes the buffer. */
export const FLUSH_INTERVAL_MS = 10_000;
// A use is queued once the stored time is this far behind; with the flush delay on top, the
// stored time is never more than a minute behind the truth.
const REFRESH_AFTER_MS = MINUTE - FLUSH_INTERVAL_MS;

export class LastUsedBuffer {
  #pending = new Map<string, { userId: string; keyId: string; at: number; ip: string }>();
  /** The newest time known to be stored per key: written here, or read from its record. */
  #stored = new Map<string, number>();

  constructor(private readonly kv: Deno.Kv) {}

  /**
   * Notes a use; it is queued only when the stored time is close to a minute behind. Runs on
   * every keyed request, so the common case is one map lookup, without parsing a date.
   */
  note(key: Pick<ApiKeyRecord, "userId" | "id" | "lastUsedAt">, ip: string, now: number) {
    const keyId = key.id;
    if (now - (this.#stored.get(keyId) ?? -Infinity) < REFRESH_AFTER_MS) return;
    const pending = this.#pending.get(keyId);
    if (pending) {
      pending.at = now;
      pending.ip = ip;
      return;
    }
    const stored = key.lastUsedAt ? Date.parse(key.lastUsedAt) : -Infinity;
    if (now - stored < REFRESH_AFTER_MS) {
      this.#stored.set(keyId, stored);
      return;
    }
    this.#pending.set(keyId, { userId: key.userId, keyId, at: now, ip });
  }

  /** Writes every pending use. */
  async flush() {
    if (this.#pending.size === 0) return;
    const uses = [...this.#pending.values()];
    this.#pending.clear();
    for (const use of uses) this.#stored.set(use.keyId, use.at);
    await recordLastUsed(
      this.kv,
      uses.map((use) => ({ ...use, at: new Date(use.at).toISOString() })),
    );
  }
}
