/** Reading many keys at once within Deno KV's limit of ten keys a `getMany`. */
import { GETMANY_MAX } from "./limits.ts";

/** The entries of `keys`, ten per getMany, all at once, in order. */
export async function getEntries<T>(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const groups: Deno.KvKey[][] = [];
  for (let i = 0; i < keys.length; i += GETMANY_MAX) groups.push(keys.slice(i, i + GETMANY_MAX));
  const read = await Promise.all(groups.map((group) => kv.getMany<T[]>(group)));
  return read.flat();
}

/** The values of `keys`, ten per getMany, all at once; null where absent. */
export async function getAll<T>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<(T | null)[]> {
  return (await getEntries<T>(kv, keys)).map((entry) => entry.value);
}
