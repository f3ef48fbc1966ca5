/**
 * A Deno.Kv handle whose every call waits as a call to Deno Deploy's KV does: a network round trip
 * to the database's primary region. Counts the round trips a request waits for in sequence. For
 * the deploy bench; the service never wraps its store in it.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What one traced stretch of work (a request) waited for. */
export interface RoundTrips {
  /** Sequential waits: the longest chain of KV calls each started after the one before finished. */
  sequential: number;
  /** Every KV call, concurrent ones each counted (a list counts one per batch it fetches). */
  calls: number;
}

export interface LatencyKv {
  kv: Deno.Kv;
  /** Delay of each call in ms; may be changed between requests. */
  delayMs: number;
  /**
   * Runs `work` and counts the KV calls made on its behalf (in its async context) until it
   * settles: work in flight elsewhere, such as background jobs, is delayed but not counted.
   */
  traced<T>(work: () => Promise<T>): Promise<{ value: T; trips: RoundTrips }>;
}

interface Trace {
  /** The deepest call finished so far. */
  finishedDepth: number;
  maxDepth: number;
  calls: number;
  open: boolean;
}

/**
 * Deno's list iterator fetches `batchSize` entries a call, by default the `limit` (100 without
 * one), at most 500 unless `batchSize` is given: checked against Deno 2.9 by writing between reads.
 */
export function listBatchSize(options: Deno.KvListOptions = {}): number {
  if (options.batchSize !== undefined) return options.batchSize;
  return Math.min(options.limit ?? 100, 500);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wraps `inner`; every call through the result takes at least `delayMs` and is traced. */
export function withLatency(inner: Deno.Kv, delayMs: number): LatencyKv {
  const traces = new AsyncLocalStorage<Trace>();
  const latency: LatencyKv = {
    kv: inner,
    delayMs,
    async traced(work) {
      const trace: Trace = { finishedDepth: 0, maxDepth: 0, calls: 0, open: true };
      try {
        const value = await traces.run(trace, work);
        return { value, trips: { sequential: trace.maxDepth, calls: trace.calls } };
      } finally {
        trace.open = false;
      }
    },
  };

  // A call's depth is one more than the deepest call of its trace finished before it started:
  // calls that overlap in time share a depth, calls that wait for one another add up.
  async function call<T>(run: () => Promise<T>): Promise<T> {
    const trace = traces.getStore();
    const counted = trace?.open === true;
    const depth = (trace?.finishedDepth ?? 0) + 1;
    if (counted) trace.calls++;
    // Even at 0 ms an answer waits for a timer: the local store may answer a call at once, within
    // the microtasks of the turn that made it, and a call made later in that same turn would then
    // count as waiting for it; over a network no answer comes back before the turn ends.
    const wait = sleep(latency.delayMs);
    try {
      const [result] = await Promise.all([run(), wait]);
      return result;
    } finally {
      if (counted && trace.open) {
        trace.finishedDepth = Math.max(trace.finishedDepth, depth);
        trace.maxDepth = Math.max(trace.maxDepth, depth);
      }
    }
  }

  const atomic = (): Deno.AtomicOperation => {
    const op = inner.atomic();
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, name) {
        const original = Reflect.get(target, name, target);
        if (typeof original !== "function") return original;
        if (name === "commit") {
          return () =>
            call(() =>
              (original as () => Promise<Deno.KvCommitResult | Deno.KvCommitError>).call(target)
            );
        }
        return (...args: unknown[]) => {
          const result = (original as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? proxy : result;
        };
      },
    });
    return proxy;
  };

  latency.kv = new Proxy(inner, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      const apply = (args: unknown[]) =>
        (original as (...a: unknown[]) => unknown).apply(target, args);
      switch (name) {
        case "get":
        case "getMany":
        case "set":
        case "delete":
        case "enqueue":
        case "commitVersionstamp":
          return (...args: unknown[]) => call(() => apply(args) as Promise<unknown>);
        case "atomic":
          return atomic;
        case "list":
          return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) =>
            delayedList(
              (original as Deno.Kv["list"]).call(target, selector, options),
              listBatchSize(options),
              options?.limit ?? Infinity,
              call,
            );
        case "watch":
          return (...args: unknown[]) =>
            delayedFirst(apply(args) as ReadableStream<Deno.KvEntryMaybe<unknown>[]>, call);
        default:
          return original.bind(target);
      }
    },
  });
  return latency;
}

type Call = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * A list iterator that waits one round trip per batch Deno would fetch: at its first entry, at
 * each batch boundary, and once more past a full last batch (the fetch that finds the end).
 */
function delayedList<T>(
  inner: Deno.KvListIterator<T>,
  batchSize: number,
  limit: number,
  call: Call,
): Deno.KvListIterator<T> {
  let read = 0;
  let done = false;
  const iterator = {
    get cursor() {
      return inner.cursor;
    },
    next(): Promise<IteratorResult<Deno.KvEntry<T>, undefined>> {
      if (done) return Promise.resolve({ done: true, value: undefined });
      const fetches = read % batchSize === 0 && read < limit;
      const step = fetches ? call(() => inner.next()) : inner.next();
      return step.then((result) => {
        if (result.done) done = true;
        else read++;
        return result;
      });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
    return() {
      done = true;
      return Promise.resolve({ done: true as const, value: undefined });
    },
  };
  return iterator as unknown as Deno.KvListIterator<T>;
}

/** A watch stream whose first answer (the current values) waits one round trip. */
function delayedFirst<T>(inner: ReadableStream<T>, call: Call): ReadableStream<T> {
  const reader = inner.getReader();
  let first = true;
  return new ReadableStream<T>({
    async pull(controller) {
      const step = first ? await call(() => reader.read()) : await reader.read();
      first = false;
      if (step.done) controller.close();
      else controller.enqueue(step.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
