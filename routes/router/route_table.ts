/**
 * The app's one route table: the order Hono is given the routes in, and the methods a request
 * path takes (404, 405 and its `Allow`, CORS preflights), both come from it.
 */
import type { z } from "@hono/zod-openapi";

/** One declared route: its method and OpenAPI-style path, with the schemas of its parameters. */
export interface TableRoute {
  method: string;
  /** `/tasks/{id}` */
  path: string;
  /** Each path parameter's schema: a segment is that parameter only if the schema takes it. */
  params?: Record<string, z.ZodType>;
}

/** A path's segments: a literal name, or a parameter with the schema that accepts its values. */
type Segment = { literal: string } | { param: string; schema?: z.ZodType };

function segmentsOf(path: string, params: TableRoute["params"] = {}): Segment[] {
  return path.split("/").map((part) => {
    const name = /^\{(.+)\}$/.exec(part)?.[1];
    return name === undefined ? { literal: part } : { param: name, schema: params[name] };
  });
}

/**
 * Paths most specific first: at the first segment where two differ, a literal name before a
 * parameter, so no parameter shadows a static path (`/tasks/explore` before `/tasks/{id}`).
 * Paths that agree on every shared segment keep their declaration order, the shorter first.
 */
export function byPrecedence(a: string, b: string): number {
  const left = a.split("/"), right = b.split("/");
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const leftParam = left[i].startsWith("{"), rightParam = right[i].startsWith("{");
    if (leftParam !== rightParam) return leftParam ? 1 : -1;
  }
  return left.length - right.length;
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function matches(segments: Segment[], parts: string[]): boolean {
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if ("literal" in segment) {
      if (segment.literal !== parts[i]) return false;
      continue;
    }
    // Asked of every request: a segment without an escape decodes to itself.
    const value = parts[i].includes("%") ? decoded(parts[i]) : parts[i];
    if (!value) return false;
    if (segment.schema && !segment.schema.safeParse(value).success) return false;
  }
  return true;
}

/** A declared path and the methods declared on it. */
interface PathEntry {
  segments: Segment[];
  methods: string[];
  /** What `methodsFor` answers: the methods with HEAD wherever GET is, built once. */
  answer: string[];
  /** What `routeFor` answers: the path in Hono's spelling (`/tasks/:id`), as OpenTelemetry names it. */
  route: string;
}

/** Routes sorted once by precedence; a request path belongs to the first path that takes it. */
export class RouteTable<T extends TableRoute = TableRoute> {
  /** Most specific first: the order Hono must be given them in. */
  readonly routes: readonly T[];
  /** By segment count, most specific first: a lookup tests only paths of its length. */
  readonly #paths = new Map<number, PathEntry[]>();

  constructor(routes: T[]) {
    this.routes = routes.toSorted((a, b) => byPrecedence(a.path, b.path));
    const byPath = new Map<string, PathEntry>();
    for (const route of this.routes) {
      let entry = byPath.get(route.path);
      if (!entry) {
        entry = {
          segments: segmentsOf(route.path, route.params),
          methods: [],
          answer: [],
          route: route.path.replace(/\{([^}]+)\}/g, ":$1"),
        };
        byPath.set(route.path, entry);
        const size = entry.segments.length;
        this.#paths.set(size, [...this.#paths.get(size) ?? [], entry]);
      }
      const method = route.method.toUpperCase();
      if (!entry.methods.includes(method)) entry.methods.push(method);
    }
    for (const entry of byPath.values()) {
      const { methods } = entry;
      const head = methods.includes("GET") && !methods.includes("HEAD");
      entry.answer = Object.freeze(head ? [...methods, "HEAD"] : [...methods]) as string[];
    }
  }

  /**
   * The methods `path` takes (HEAD wherever GET is): those of the most specific declared path
   * that takes it, none when no path does. A parameter takes a segment its schema accepts, so
   * `/tasks/not-an-id` is no path at all, while a parameter declared as any name takes any.
   * The list is shared by every request of the path (frozen): asked by every request, it is
   * built once.
   */
  methodsFor(path: string): string[] {
    return this.#entryFor(path)?.answer ?? [];
  }

  /** The declared path that takes `path` (`/api/v1/tasks/:id`), null when none does. */
  routeFor(path: string): string | null {
    return this.#entryFor(path)?.route ?? null;
  }

  #entryFor(path: string): PathEntry | null {
    const parts = path.split("/");
    const entries = this.#paths.get(parts.length);
    if (entries) {
      for (const entry of entries) if (matches(entry.segments, parts)) return entry;
    }
    return null;
  }
}
