/**
 * Hono's TrieRouter, remembering its answer per path shape: Hono's faster RegExpRouter refuses a
 * literal segment beside a parameter (`/users/me` beside `/users/{id}`), and the trie's walk cost
 * every request a few microseconds and objects.
 */
import type { Params, Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

/**
 * A segment that no route names stands for every such segment: the trie can only match it with a
 * parameter or a wildcard, whatever its text. Control characters never reach a path unescaped.
 */
const MARK = "\u0001";
// Shapes remembered at most: paths of made-up segments mixing route names could make many.
const MAX_SHAPES = 2_000;

/** One matched handler: its parameters as segment positions (numbers) or fixed texts. */
type Template<T> = [T, [string, number | string][]];

/** The trie's answer for a path (its form without a parameter stash). */
type Matched<T> = [[T, Params][]];

/** A parameter object as Hono's routers make them: without a prototype. */
const paramsObject = (): Params => Object.create(null);
const NO_PARAMS: Params = Object.freeze(paramsObject());

export class ShapeRouter<T> implements Router<T> {
  readonly name = "ShapeRouter";
  readonly #trie = new TrieRouter<T>();
  /** Every segment text of every route, parameters and wildcards as written. */
  readonly #named = new Set<string>([""]);
  /** False once a route has a segment whose match depends on its text (a pattern, `a*`). */
  #shapes = true;
  readonly #memo = new Map<string, Template<T>[]>();

  add(method: string, path: string, handler: T): void {
    this.#trie.add(method, path, handler);
    this.#memo.clear();
    for (const part of path.split("/")) {
      this.#named.add(part);
      const pattern = /[{}?]/.test(part) || (part.includes("*") && part !== "*");
      if (pattern) this.#shapes = false;
    }
  }

  match(method: string, path: string): Result<T> {
    if (!this.#shapes) return this.#trie.match(method, path);
    const parts = path.split("/");
    let shape = "";
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      shape += (i === 0 ? "" : "/") + (this.#named.has(part) ? part : MARK + i);
    }
    const key = method + " " + shape;
    let templates = this.#memo.get(key);
    if (!templates) {
      if (this.#memo.size >= MAX_SHAPES) return this.#trie.match(method, path);
      templates = this.#templates(method, shape);
      this.#memo.set(key, templates);
    }
    const matched: [T, Params][] = [];
    for (const [handler, params] of templates) {
      if (params.length === 0) {
        matched.push([handler, NO_PARAMS]);
        continue;
      }
      const object = paramsObject();
      for (const [name, at] of params) object[name] = typeof at === "number" ? parts[at] : at;
      matched.push([handler, object]);
    }
    return [matched] as unknown as Result<T>;
  }

  /** The trie's answer for a shape, its marked segments' values as their positions. */
  #templates(method: string, shape: string): Template<T>[] {
    const [matched] = this.#trie.match(method, shape) as unknown as Matched<T>;
    return matched.map(([handler, params]) => [
      handler,
      Object.entries(params).map(([name, value]) => [
        name,
        value.startsWith(MARK) ? Number(value.slice(MARK.length)) : value,
      ]),
    ]);
  }
}
