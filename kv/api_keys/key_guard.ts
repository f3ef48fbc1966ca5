/**
 * A request's view of the store while it acts for a cached API key: the key's guard (a key every
 * change to what the key may do rewrites, kv/keyspace/api_keys.ts) rides on the request's first
 * read (in the same `getMany`, or beside a `list`), and every atomic the request commits checks
 * its versionstamp. A change to the key since it was cached is seen before any answer leaves, and
 * no write commits under it, without a read of its own in sequence. Only after a change is the
 * record read, to judge the key as it is now.
 */
import type { ApiKeyRecord } from "../../domain/api_key.ts";
import { apiKeys } from "../keyspace.ts";
import { GETMANY_MAX } from "../store/limits.ts";
import { type Consistency, GuardedStore, type StoreGuard } from "./guarded_store.ts";

type KeyEntry = Deno.KvEntryMaybe<ApiKeyRecord>;
type GuardEntry = Deno.KvEntryMaybe<unknown>;

const ignore = () => {};
const first = <T>(entries: T[]) => entries[0];

export interface KeyGuardOptions {
  userId: string;
  keyId: string;
  /**
   * The versionstamp of the key's guard read with the record the request was authenticated
   * with; null when the key had never changed.
   */
  versionstamp: string | null;
  /** True when that record was read by this request: nothing to confirm before answering. */
  fresh: boolean;
  /** Settles when the request is counted in its budget: no commit goes before; rejects on 429. */
  admitted?: Promise<unknown>;
  /**
   * Judges the record as it is now, when the key changed since it was cached: throws the answer
   * of the first check it fails (401, 403), returns when the request is still allowed. `guard`
   * is the guard's versionstamp read with that record.
   */
  rejudge: (entry: KeyEntry, guard: string | null) => Promise<void>;
}

export class KeyGuard implements StoreGuard {
  /** The store for the request's handler: its first read carries the key's record. */
  readonly kv: Deno.Kv;
  readonly #inner: Deno.Kv;
  readonly #record: Deno.KvKey;
  readonly #guard: Deno.KvKey;
  readonly #rejudge: KeyGuardOptions["rejudge"];
  /** The guard's versionstamp the request holds to: every commit checks it. */
  #expected: string | null;
  /** Settles once the record has been read since the request began; rejects with the refusal. */
  #confirmed: Promise<void> | null;
  readonly admitted: Promise<unknown>;

  constructor(inner: Deno.Kv, options: KeyGuardOptions) {
    this.#inner = inner;
    this.#record = apiKeys.record(options.userId, options.keyId);
    this.#guard = apiKeys.guard(options.keyId);
    this.#expected = options.versionstamp;
    this.#rejudge = options.rejudge;
    this.#confirmed = options.fresh ? Promise.resolve() : null;
    this.admitted = options.admitted ?? Promise.resolve();
    // Without the queue methods, which the service never calls (tests/kv/no_kv_queues_test.ts).
    this.kv = new GuardedStore(inner, this) as unknown as Deno.Kv;
  }

  /**
   * Resolves once the key is known to allow the request as the store is now; rejects with the
   * refusal when a change took away what it needs. A request that has read nothing yet reads the
   * guard here.
   */
  confirm(): Promise<void> {
    return this.#confirmed ??= this.#settle(this.#inner.getMany([this.#guard]), 0);
  }

  /** The confirmation from `read`, whose entry `at` is the guard. */
  #settle(read: Promise<GuardEntry[]>, at: number): Promise<void> {
    const settled = read.then((entries) => this.#judge(entries[at]));
    settled.catch(ignore); // answered by confirm() and by every commit, not unhandled here
    return settled;
  }

  /**
   * Nothing to do while the guard has not moved (no promise: this runs on every keyed request);
   * else the record is read and judged again.
   */
  #judge(entry: GuardEntry): Promise<void> | undefined {
    return entry.versionstamp === this.#expected ? undefined : this.#judgeMoved();
  }

  async #judgeMoved() {
    // The guard with the record, in one snapshot: the versionstamp held to is the judged one's.
    const [guard, record] = await this.#inner.getMany<[unknown, ApiKeyRecord]>([
      this.#guard,
      this.#record,
    ]);
    await this.#rejudge(record, guard.versionstamp);
    this.#expected = guard.versionstamp;
  }

  /** Reads `keys` with the key's guard when nothing has read it yet and there is room. */
  read(
    keys: readonly Deno.KvKey[],
    options?: Consistency,
  ): Promise<Deno.KvEntryMaybe<unknown>[]> {
    const inner = this.#inner;
    const room = keys.length < GETMANY_MAX && options?.consistency !== "eventual";
    if (this.#confirmed || !room) {
      if (!room) this.confirm(); // beside it, not after it
      return inner.getMany(keys, options);
    }
    const count = keys.length;
    const both = inner.getMany([...keys, this.#guard], options);
    this.#confirmed = this.#settle(both, count);
    return both.then((entries) => (entries.length = count, entries));
  }

  /** `read` of one key, answering its entry without a promise more. */
  readOne(key: Deno.KvKey, options?: Consistency): Promise<Deno.KvEntryMaybe<unknown>> {
    if (this.#confirmed || options?.consistency === "eventual") {
      return this.read([key], options).then(first);
    }
    const both = this.#inner.getMany([key, this.#guard], options);
    this.#confirmed = this.#settle(both, 1);
    return both.then(first);
  }

  /** The check every commit of the request carries. */
  keyCheck(): Deno.AtomicCheck {
    return { key: this.#guard, versionstamp: this.#expected };
  }

  /**
   * After a commit failed a check: true when the key's guard moved (and the key still allows the
   * request, else the refusal is thrown), so the commit may go again under its new versionstamp;
   * false when the failed check was the caller's own.
   */
  async keyMoved(checked: Deno.AtomicCheck): Promise<boolean> {
    const entry = await this.#inner.get(this.#guard);
    if (entry.versionstamp === checked.versionstamp) return false;
    await this.#judgeMoved();
    return true;
  }

  /** A commit checked the guard: the key allowed the request when it committed. */
  committed() {
    this.#confirmed ??= Promise.resolve();
  }
}
