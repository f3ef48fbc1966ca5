/** JSON with object members in sorted order, so equal values always serialize to equal text. */

/** Serializes plain JSON data with every object's members sorted by name. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const record = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]]));
  });
}
