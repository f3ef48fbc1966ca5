/** A key's identity as a string, to compare sets of keys (a task's index entries, a copy's). */

/** A string that is equal for equal keys. */
export function keyId(key: Deno.KvKey): string {
  return JSON.stringify(key.map((part) => {
    if (typeof part === "bigint") return `${part}n`;
    if (part instanceof Uint8Array) return [...part];
    return part;
  }));
}
