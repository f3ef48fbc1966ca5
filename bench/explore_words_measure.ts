/**
 * The check of bench:explore-words' model: the same pages run by the service on the cached
 * layout-8 store (bench/explore_cache.ts), their reads counted by the key family they list.
 */
import { exploreTasks } from "../kv/explore/newest_page.ts";
import { exploreFilters } from "../domain/explore.ts";
import { kvPath } from "./explore_cache.ts";
import type { queryKinds } from "./explore_data_queries.ts";
import { NEED } from "./explore_words_model.ts";

export type Query = ReturnType<typeof queryKinds>[number]["queries"][number];

/** What a page of today's service reads, by the family its keys start with. */
interface Measured {
  dict: number;
  entries: number;
  docs: number;
  lists: number;
  other: number;
}

/** Runs the kinds' pages on the cached layout-8 store (warm handle), reads counted by family. */
export async function measure(n: number, kinds: Map<string, Query[]>) {
  const kv = await Deno.openKv(kvPath(n));
  const counts: Measured = { dict: 0, entries: 0, docs: 0, lists: 0, other: 0 };
  const add = (root: unknown, entries: number, list: boolean) => {
    if (root === "xp_words") counts.dict += entries;
    else if (root === "xp_w") counts.entries += entries;
    else if (root === "xp_tasks") counts.docs += entries;
    else counts.other += entries;
    if (list && (root === "xp_words" || root === "xp_w")) counts.lists++;
  };
  const counted = new Proxy(kv, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (name === "getMany") {
        return (keys: Deno.KvKey[], ...rest: unknown[]) => {
          add(keys[0]?.[0], keys.length, false);
          return (original as Deno.Kv["getMany"]).apply(target, [keys, ...rest] as never);
        };
      }
      if (name === "get") {
        return (k: Deno.KvKey, ...rest: unknown[]) => {
          add(k[0], 1, false);
          return (original as Deno.Kv["get"]).apply(target, [k, ...rest] as never);
        };
      }
      if (name === "list") {
        return async function* (selector: Deno.KvListSelector, options?: Deno.KvListOptions) {
          const first = "prefix" in selector ? selector.prefix : selector.start;
          const root = (first ?? [])[0];
          add(root, 0, true);
          for await (const entry of kv.list(selector, options)) {
            add(root, 1, false);
            yield entry;
          }
        };
      }
      return typeof original === "function" ? original.bind(target) : original;
    },
  }) as Deno.Kv;
  const page = (q: Query, store: Deno.Kv) =>
    exploreTasks(store, { filters: exploreFilters(q), limit: NEED - 1 });
  const out = new Map<string, Measured>();
  for (const [name, queries] of kinds) {
    for (const q of queries) await page(q, kv);
    Object.assign(counts, { dict: 0, entries: 0, docs: 0, lists: 0, other: 0 });
    for (const q of queries) await page(q, counted);
    const per = (v: number) => v / queries.length;
    out.set(name, {
      dict: per(counts.dict),
      entries: per(counts.entries),
      docs: per(counts.docs),
      lists: per(counts.lists),
      other: per(counts.other),
    });
  }
  kv.close();
  return out;
}
