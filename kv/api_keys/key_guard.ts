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
import { GETMANY_MAX, KV_LIMITS } from "../store/limits.ts";
import { STORE_HANDLE, storeHandle } from "../store/handle.ts";

const MAX_CHECKS = KV_LIMITS.checks;
// Rounds of a commit whose key check failed on a change that still allows the request (a new
// name, a wider whitelist): each one re-reads the key, so a key rewritten this often is a 409.
const MAX_KEY_ROUNDS = 5;

type KeyEntry = Deno.KvEntryMaybe<ApiKeyRecord>;
type GuardEntry = Deno.KvEntryMaybe<unknown>;

const ignore = () => {};
const first = <T>(entries: T[]) => entries[0];
type Consistency = { consistency?: Deno.KvConsistencyLevel };

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

export class KeyGuard {
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
    // Without the queue methods, which the service never calls (tests/no_kv_queues_test.ts).
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

/** Every method of the store but its queue's: background work is jobs (kv/jobs/), never a queue. */
type StoreMethods =
  | "get"
  | "getMany"
  | "set"
  | "delete"
  | "list"
  | "atomic"
  | "watch"
  | "close"
  | "commitVersionstamp"
  | typeof Symbol.dispose;

/**
 * The store as a request's handler sees it under its key: reads go through the guard (the first
 * carries the key's guard) and commits check it; the rest is the store's own. One plain object a
 * request: a Proxy with its handler and methods made per request cost every keyed request.
 */
class GuardedStore implements Pick<Deno.Kv, StoreMethods> {
  constructor(private readonly inner: Deno.Kv, private readonly guard: KeyGuard) {}

  get [STORE_HANDLE](): Deno.Kv {
    return storeHandle(this.inner);
  }

  get<T = unknown>(key: Deno.KvKey, options?: Consistency): Promise<Deno.KvEntryMaybe<T>> {
    return this.guard.readOne(key, options) as Promise<Deno.KvEntryMaybe<T>>;
  }

  getMany<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
    options?: Consistency,
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    return this.guard.read(keys, options) as Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }>;
  }

  list<T = unknown>(
    selector: Deno.KvListSelector,
    options?: Deno.KvListOptions,
  ): Deno.KvListIterator<T> {
    this.guard.confirm(); // a list cannot carry the guard: it is read beside it
    return this.inner.list<T>(selector, options);
  }

  atomic(): Deno.AtomicOperation {
    return new GuardedAtomic(this.inner, this.guard);
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) {
    return this.inner.set(key, value, options);
  }
  delete(key: Deno.KvKey) {
    return this.inner.delete(key);
  }
  watch<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
    options?: { raw?: boolean },
  ) {
    return this.inner.watch<T>(keys, options);
  }
  close() {
    this.inner.close();
  }
  commitVersionstamp() {
    return this.inner.commitVersionstamp();
  }
  [Symbol.dispose]() {
    this.inner[Symbol.dispose]();
  }
}

/**
 * A view of `inner` whose commits wait for `admitted` (and fail with its rejection): a request
 * run ahead of its rate-limit grant writes nothing before it is counted.
 */
export function commitsAfter(inner: Deno.Kv, admitted: Promise<unknown>): Deno.Kv {
  const atomic = () => {
    const op = inner.atomic();
    const commit = op.commit.bind(op);
    op.commit = () => admitted.then(commit);
    return op;
  };
  return new Proxy(inner, {
    get(target, name) {
      if (name === "atomic") return atomic;
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * An atomic that records its steps and commits them with the key's check added; when only that
 * check failed and the key still allows the request, it commits them again under the new one.
 */
class GuardedAtomic implements Deno.AtomicOperation {
  #steps: ((op: Deno.AtomicOperation) => void)[] = [];
  #checks = 0;

  constructor(private readonly inner: Deno.Kv, private readonly guard: KeyGuard) {}

  #step(step: (op: Deno.AtomicOperation) => void): this {
    this.#steps.push(step);
    return this;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    this.#checks += checks.length;
    return this.#step((op) => op.check(...checks));
  }
  mutate(...mutations: Deno.KvMutation[]): this {
    return this.#step((op) => op.mutate(...mutations));
  }
  sum(key: Deno.KvKey, n: bigint): this {
    return this.#step((op) => op.sum(key, n));
  }
  min(key: Deno.KvKey, n: bigint): this {
    return this.#step((op) => op.min(key, n));
  }
  max(key: Deno.KvKey, n: bigint): this {
    return this.#step((op) => op.max(key, n));
  }
  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    return this.#step((op) => op.set(key, value, options));
  }
  delete(key: Deno.KvKey): this {
    return this.#step((op) => op.delete(key));
  }
  /** Part of the interface only: background work is jobs (kv/jobs/), never a KV queue. */
  enqueue(): this {
    throw new Error("KV queues are not used here: write a job (kv/jobs/) instead");
  }

  async commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    if (this.#checks >= MAX_CHECKS) {
      throw new Error(`an atomic under an API key holds at most ${MAX_CHECKS - 1} checks`);
    }
    await this.guard.admitted;
    for (let round = 0;; round++) {
      const op = this.inner.atomic();
      for (const step of this.#steps) step(op);
      const keyCheck = this.guard.keyCheck();
      const result = await op.check(keyCheck).commit();
      if (result.ok) {
        this.guard.committed();
        return result;
      }
      if (round + 1 >= MAX_KEY_ROUNDS || !await this.guard.keyMoved(keyCheck)) return result;
    }
  }
}
