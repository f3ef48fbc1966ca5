/**
 * A Deno.Kv handle that counts what passes through it as Deno Deploy bills KV: read operations
 * and read units (4 KiB of keys and values each, per call), committed writes and write units
 * (1 KiB per key written). For the cost bench and the idle-instance test; the service never
 * wraps its store in it.
 */

export interface KvUsage {
  reads: number;
  readUnits: number;
  readBytes: number;
  commits: number;
  writeUnits: number;
  writeBytes: number;
}

const READ_UNIT = 4096;
const WRITE_UNIT = 1024;
const encoder = new TextEncoder();

/** Bytes of a key or value, close to KV's own encoding for the shapes this service stores. */
export function approxBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (value instanceof Deno.KvU64) return 8;
  if (value instanceof Uint8Array) return value.byteLength;
  const json = JSON.stringify(
    value,
    (_, v) => typeof v === "bigint" ? v.toString() : v instanceof Deno.KvU64 ? "00000000" : v,
  );
  return json === undefined ? 0 : encoder.encode(json).byteLength;
}

/** A key or selector as the read log shows it. */
function describe(what: unknown): string {
  return JSON.stringify(what, (_, v) => typeof v === "bigint" ? `${v}n` : v) ?? String(what);
}

function entryBytes(entry: { key: Deno.KvKey; value: unknown }): number {
  return approxBytes(entry.key) + approxBytes(entry.value);
}

export interface MeteredKv {
  kv: Deno.Kv;
  usage: KvUsage;
  /**
   * What each read since the last reset asked for (its first key or its selector), in order; kept
   * only when asked (`logReads`), as benches read millions of times through the meter.
   */
  readLog: string[];
  reset(): void;
}

function emptyUsage(): KvUsage {
  return { reads: 0, readUnits: 0, readBytes: 0, commits: 0, writeUnits: 0, writeBytes: 0 };
}

/** Wraps `inner`; every read and committed write through the result is added to `usage`. */
export function meter(inner: Deno.Kv, { logReads = false } = {}): MeteredKv {
  const metered: MeteredKv = { kv: inner, usage: emptyUsage(), readLog: [], reset: () => {} };
  metered.reset = () => {
    metered.usage = emptyUsage();
    metered.readLog = [];
  };
  const read = (bytes: number, what: unknown) => {
    if (logReads) metered.readLog.push(describe(what));
    metered.usage.reads++;
    metered.usage.readBytes += bytes;
    metered.usage.readUnits += Math.max(1, Math.ceil(bytes / READ_UNIT));
  };
  const wrote = (mutations: { key: Deno.KvKey; value?: unknown }[]) => {
    metered.usage.commits++;
    for (const mutation of mutations) {
      const bytes = approxBytes(mutation.key) + approxBytes(mutation.value);
      metered.usage.writeBytes += bytes;
      metered.usage.writeUnits += Math.max(1, Math.ceil(bytes / WRITE_UNIT));
    }
  };

  const atomic = (): Deno.AtomicOperation => {
    const op = inner.atomic();
    const mutations: { key: Deno.KvKey; value?: unknown }[] = [];
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, name) {
        const original = Reflect.get(target, name, target);
        if (typeof original !== "function") return original;
        return (...args: unknown[]) => {
          if (name === "commit") {
            return (original as () => Promise<Deno.KvCommitResult | Deno.KvCommitError>)
              .call(target).then((result) => {
                if (result.ok) wrote(mutations);
                return result;
              });
          }
          if (name === "set" || name === "sum" || name === "min" || name === "max") {
            mutations.push({ key: args[0] as Deno.KvKey, value: args[1] });
          } else if (name === "delete") {
            mutations.push({ key: args[0] as Deno.KvKey });
          } else if (name === "mutate") {
            mutations.push(...(args as Deno.KvMutation[]));
          }
          const result = (original as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? proxy : result;
        };
      },
    });
    return proxy;
  };

  metered.kv = new Proxy(inner, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      switch (name) {
        case "get":
          return async (...args: unknown[]) => {
            const entry =
              await (original as (...a: unknown[]) => Promise<Deno.KvEntryMaybe<unknown>>)
                .apply(target, args);
            read(entryBytes(entry), args[0]);
            return entry;
          };
        case "getMany":
          return async (...args: unknown[]) => {
            const entries =
              await (original as (...a: unknown[]) => Promise<Deno.KvEntryMaybe<unknown>[]>)
                .apply(target, args);
            read(entries.reduce((sum, entry) => sum + entryBytes(entry), 0), args[0]);
            return entries;
          };
        case "list":
          return (...args: unknown[]) =>
            meterList(
              (original as (...a: unknown[]) => Deno.KvListIterator<unknown>).apply(target, args),
              (bytes) => read(bytes, args[0]),
            );
        case "atomic":
          return atomic;
        case "set":
          return (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) =>
            atomic().set(key, value, options).commit();
        case "delete":
          return (key: Deno.KvKey) => atomic().delete(key).commit().then(() => {});
        default:
          return original.bind(target);
      }
    },
  });
  return metered;
}

/** A list iterator counted as one read operation, its units from the bytes of every entry read. */
function meterList<T>(
  inner: Deno.KvListIterator<T>,
  read: (bytes: number) => void,
): Deno.KvListIterator<T> {
  let bytes = 0;
  let done = false;
  const finish = () => {
    if (!done) read(bytes);
    done = true;
  };
  const iterator = {
    get cursor() {
      return inner.cursor;
    },
    async next() {
      const step = await inner.next();
      if (step.done) finish();
      else bytes += entryBytes(step.value);
      return step;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
    return() {
      finish();
      return Promise.resolve({ done: true as const, value: undefined });
    },
  };
  return iterator as unknown as Deno.KvListIterator<T>;
}
