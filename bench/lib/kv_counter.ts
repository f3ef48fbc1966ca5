/**
 * A Deno.Kv handle that counts the calls and entries a stretch of work reads: a get one call and
 * one entry, a getMany one call and its keys, a list one call per batch Deno fetches and its
 * entries. Load-independent figures for the explore benches; the service never wraps its store.
 */
import { listBatchSize } from "../../kv/store/latency.ts";

export interface ReadCounts {
  calls: number;
  entries: number;
  lists: number;
  getManys: number;
}

export interface CountingKv {
  kv: Deno.Kv;
  counts: ReadCounts;
  reset(): void;
}

const empty = (): ReadCounts => ({ calls: 0, entries: 0, lists: 0, getManys: 0 });

/** Wraps `inner`; every read through the result is added to `counts`. */
export function countReads(inner: Deno.Kv): CountingKv {
  const counting: CountingKv = { kv: inner, counts: empty(), reset: () => {} };
  counting.reset = () => counting.counts = empty();
  counting.kv = new Proxy(inner, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      switch (name) {
        case "get":
          return (...args: unknown[]) => {
            counting.counts.calls++;
            counting.counts.entries++;
            return (original as (...a: unknown[]) => unknown).apply(target, args);
          };
        case "getMany":
          return (keys: Deno.KvKey[], ...rest: unknown[]) => {
            counting.counts.calls++;
            counting.counts.getManys++;
            counting.counts.entries += keys.length;
            return (original as (...a: unknown[]) => unknown).apply(target, [keys, ...rest]);
          };
        case "list":
          return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
            const iterator = (original as Deno.Kv["list"]).call(target, selector, options);
            return countedList(iterator, options, counting);
          };
        default:
          return original.bind(target);
      }
    },
  });
  return counting;
}

function countedList<T>(
  inner: Deno.KvListIterator<T>,
  options: Deno.KvListOptions | undefined,
  counting: CountingKv,
): Deno.KvListIterator<T> {
  const batchSize = listBatchSize(options);
  const limit = options?.limit ?? Infinity;
  let read = 0;
  const iterator = {
    get cursor() {
      return inner.cursor;
    },
    async next(): Promise<IteratorResult<Deno.KvEntry<T>, undefined>> {
      if (read % batchSize === 0 && read < limit) {
        counting.counts.calls++;
        counting.counts.lists++;
      }
      const result = await inner.next();
      if (!result.done) {
        read++;
        counting.counts.entries++;
      }
      return result;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
    return() {
      return Promise.resolve({ done: true as const, value: undefined });
    },
  };
  return iterator as unknown as Deno.KvListIterator<T>;
}
