/**
 * The store as a request's handler sees it under its API key (kv/api_keys/key_guard.ts judges the
 * key): reads carry the key's guard, commits check it; and a view whose commits wait for admission.
 */
import { KV_LIMITS } from "../store/limits.ts";
import { STORE_HANDLE, storeHandle } from "../store/handle.ts";

const MAX_CHECKS = KV_LIMITS.checks;
// Rounds of a commit whose key check failed on a change that still allows the request (a new
// name, a wider whitelist): each one re-reads the key, so a key rewritten this often is a 409.
const MAX_KEY_ROUNDS = 5;

export type Consistency = { consistency?: Deno.KvConsistencyLevel };

/**
 * What the guarded store asks of the guard that judges its key (`KeyGuard` in key_guard.ts): the
 * store's side of the pair declared here, so the guard imports the store and not the reverse.
 */
export interface StoreGuard {
  /** Resolves once the key allowed the request. */
  readonly admitted: Promise<unknown>;
  /** Reads `keys` with the key's guard when nothing has read it yet and there is room. */
  read(keys: readonly Deno.KvKey[], options?: Consistency): Promise<Deno.KvEntryMaybe<unknown>[]>;
  /** `read` of one key. */
  readOne(key: Deno.KvKey, options?: Consistency): Promise<Deno.KvEntryMaybe<unknown>>;
  /** Reads the key's guard beside a read that cannot carry it. */
  confirm(): Promise<void>;
  /** The check every commit of the request carries. */
  keyCheck(): Deno.AtomicCheck;
  /** After a failed commit: whether the key's guard moved, so the commit may go again. */
  keyMoved(checked: Deno.AtomicCheck): Promise<boolean>;
  /** A commit checked the guard. */
  committed(): void;
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
export class GuardedStore implements Pick<Deno.Kv, StoreMethods> {
  constructor(private readonly inner: Deno.Kv, private readonly guard: StoreGuard) {}

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

  constructor(private readonly inner: Deno.Kv, private readonly guard: StoreGuard) {}

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
