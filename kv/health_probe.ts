/**
 * The storage check behind /health: a real read of the store and, when no worker of the instance
 * has proved lately that the store takes writes, a real write; run at most once a second per
 * process however many probes come.
 */
import { commit } from "./commit.ts";
import { health } from "./keyspace.ts";
import { storageWrites } from "./store/storage_writes.ts";

/** What /health reports: the store answers, takes no writes, or does not answer. */
export type StorageStatus = "ok" | "read_only" | "unavailable";

/** How old a result may be and still answer a probe. */
export const PROBE_MAX_AGE_MS = 1000;
/**
 * How long a probe write that went through (by any process on the store) vouches for the store
 * taking writes. Every worker reads the same proof, so a full disk one of them met is told by all
 * of them within this time, at the cost of one tiny write per this time while /health is probed.
 */
export const WRITABLE_PROOF_MS = 5000;
/** A store that has not answered by then counts as unavailable. */
export const PROBE_TIMEOUT_MS = 2000;

/** Rejects when `work` takes longer than the probe timeout. */
async function inTime<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class HealthProbe {
  #last: { at: number; status: StorageStatus } | null = null;
  #running: Promise<StorageStatus> | null = null;

  constructor(private readonly kv: Deno.Kv, private readonly now: () => number) {}

  /**
   * The store's status from a check begun at most a second ago; probes arriving while a check
   * runs wait for that one. The check reads the instance's writable proof; a stale one, or a
   * store this process saw refuse a write, is probed with a write: the first that goes through
   * (this one or any other commit) ends a full episode.
   */
  status(): Promise<StorageStatus> {
    const last = this.#last;
    if (last && this.now() - last.at < PROBE_MAX_AGE_MS && !this.#outdated(last.status)) {
      return Promise.resolve(last.status);
    }
    this.#running ??= this.#check().finally(() => this.#running = null);
    return this.#running;
  }

  /** A commit elsewhere saw the store fill up or free up since the cached result. */
  #outdated(status: StorageStatus): boolean {
    return (status === "read_only") !== storageWrites.full && status !== "unavailable";
  }

  async #check(): Promise<StorageStatus> {
    const at = this.now();
    let status: StorageStatus;
    try {
      const proof = await inTime(this.kv.get<number>(health.probe()));
      const fresh = typeof proof.value === "number" && at - proof.value < WRITABLE_PROOF_MS &&
        proof.value <= at;
      status = storageWrites.full || !fresh ? await this.#writable() : "ok";
    } catch {
      status = "unavailable";
    }
    this.#last = { at, status };
    return status;
  }

  async #writable(): Promise<StorageStatus> {
    try {
      await inTime(commit(this.kv.atomic().set(health.probe(), this.now())));
      return "ok";
    } catch {
      return storageWrites.full ? "read_only" : "unavailable";
    }
  }
}
