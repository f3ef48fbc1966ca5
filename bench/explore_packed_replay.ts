/**
 * What an explore page reads, recorded read by read, and replayed: as it was, or with its geo
 * cells' lists turned into reads of packed chunks (bench/explore_packed_proto.ts).
 */
import { cellId, readChunk } from "./explore_packed_chunks.ts";

/** One read a page made: a list (its selector, options and the entries it took) or a getMany. */
export type Read =
  | { kind: "list"; selector: Deno.KvListSelector; options?: Deno.KvListOptions; taken: number }
  | { kind: "getMany"; keys: Deno.KvKey[] }
  | { kind: "get"; key: Deno.KvKey };

/** A handle that records every read made through it into `log`. */
export function recording(inner: Deno.Kv, log: Read[]): Deno.Kv {
  return new Proxy(inner, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      if (name === "getMany") {
        return (keys: Deno.KvKey[], ...rest: unknown[]) => {
          log.push({ kind: "getMany", keys });
          return (original as (...a: unknown[]) => unknown).apply(target, [keys, ...rest]);
        };
      }
      if (name === "get") {
        return (key: Deno.KvKey, ...rest: unknown[]) => {
          log.push({ kind: "get", key });
          return (original as (...a: unknown[]) => unknown).apply(target, [key, ...rest]);
        };
      }
      if (name === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          const read: Read = { kind: "list", selector, options, taken: 0 };
          log.push(read);
          const it = (original as Deno.Kv["list"]).call(target, selector, options);
          const wrapped = {
            get cursor() {
              return it.cursor;
            },
            async next() {
              const r = await it.next();
              if (!r.done) read.taken++;
              return r;
            },
            [Symbol.asyncIterator]() {
              return wrapped;
            },
            return() {
              return Promise.resolve({ done: true as const, value: undefined });
            },
          };
          return wrapped as unknown as Deno.KvListIterator<unknown>;
        };
      }
      return original.bind(target);
    },
  });
}

/** The cell a list reads, when it lists one geo cell of a packed layer, else null. */
export function cellOf(read: Read, layers: Set<string>): string | null {
  if (read.kind !== "list") return null;
  const s = read.selector as { prefix?: Deno.KvKey; start?: Deno.KvKey; end?: Deno.KvKey };
  const key = s.prefix ?? s.start ?? s.end;
  if (!key || key[0] !== "xp_by_cell" || !layers.has(String(key[1]))) return null;
  return cellId(key);
}

/** The ids of the chunks (newest first) that hold a cell's entries at positions [from, to). */
export function chunkSpan(ids: string[], from: number, to: number): number {
  return new Set(ids.slice(from, Math.min(to, ids.length))).size;
}

/** Replays a page's reads in order; bytes chunks are read as a page would. */
export async function replay(kv: Deno.Kv, reads: Read[]): Promise<void> {
  for (const r of reads) {
    if (r.kind === "get") await kv.get(r.key);
    else if (r.kind === "getMany") {
      for (const e of await kv.getMany(r.keys)) {
        if (e.value instanceof Uint8Array) readChunk(e.value, 3);
      }
    } else {
      let n = 0;
      if (r.taken === 0) {
        for await (const _ of kv.list(r.selector, { ...r.options, limit: 1 })) break;
        continue;
      }
      for await (const e of kv.list(r.selector, r.options)) {
        // A page's 20 matches come from its streams' newest cards: a few a chunk.
        if (e.value instanceof Uint8Array) readChunk(e.value, 3);
        if (++n >= r.taken) break;
      }
    }
  }
}
