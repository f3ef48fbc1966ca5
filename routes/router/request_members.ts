/**
 * What a request schema knows: the member names of its objects at a path (for "did you mean"),
 * and a check, made when a route is declared, that every one of its objects refuses unknown
 * members (`z.strictObject`), so no endpoint can silently drop a misspelt field.
 */
import type { z } from "@hono/zod-openapi";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  valueType?: z.ZodType;
  getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** The schemas a value at this schema is checked by, one step in (wrappers, pipes, unions). */
function inner(def: Def): z.ZodType[] {
  if (def.innerType) return [def.innerType];
  if (def.type === "pipe" && def.in) return [def.in];
  if (def.type === "lazy" && def.getter) return [def.getter()];
  if (def.options) return def.options;
  if (def.left && def.right) return [def.left, def.right];
  return [];
}

/** The member schemas of the value at `key` under this schema. */
function children(def: Def, key?: PropertyKey): z.ZodType[] {
  if (def.shape) return key === undefined ? Object.values(def.shape) : [def.shape[String(key)]];
  if (def.element) return [def.element];
  if (def.items) {
    const items = key === undefined ? def.items : [def.items[Number(key)] ?? def.rest];
    return [...items, ...(key === undefined && def.rest ? [def.rest] : [])].filter((s) => !!s);
  }
  if (def.valueType) return [def.valueType];
  return [];
}

/** The member names the objects at `path` know, or none when no object is there. */
export function knownMembers(schema: z.ZodType, path: readonly PropertyKey[]): Set<string> {
  const names = new Set<string>();
  const seen = new Set<z.ZodType>();
  const visit = (at: z.ZodType | undefined, rest: readonly PropertyKey[]) => {
    if (!at || seen.has(at)) return;
    seen.add(at);
    const def = defOf(at);
    for (const next of inner(def)) visit(next, rest);
    if (rest.length === 0) {
      for (const name of Object.keys(def.shape ?? {})) names.add(name);
      return;
    }
    for (const next of children(def, rest[0])) visit(next, rest.slice(1));
  };
  visit(schema, path);
  return names;
}

/**
 * Throws, naming the route and the path, when an object in `schema` accepts members it does not
 * declare: a route declared with it would drop a misspelt field instead of refusing it.
 */
export function assertStrict(schema: z.ZodType, where: string): void {
  const seen = new Set<z.ZodType>();
  const visit = (at: z.ZodType, path: string) => {
    if (seen.has(at)) return;
    seen.add(at);
    const def = defOf(at);
    if (def.type === "object" && defOf(def.catchall ?? at).type !== "never") {
      throw new Error(`${where}: the object at ${path || "(root)"} must be a z.strictObject`);
    }
    for (const next of inner(def)) visit(next, path);
    if (def.shape) {
      for (const [name, member] of Object.entries(def.shape)) {
        visit(member, path ? `${path}.${name}` : name);
      }
    } else {
      for (const member of children(def)) visit(member, `${path}[]`);
    }
  };
  visit(schema, "");
}
