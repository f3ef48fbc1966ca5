/**
 * `deno task bench:explore-layers [--n=1000000] [--queries=300] [--kinds=sparse area]`: where a
 * first page's reads go, by index layer (city `c`, `r25`, disc layers, fallbacks) and by round
 * trip. Load-independent: entries, lists and the sequential wait a call starts at, on a warm
 * handle.
 */
import { exploreFilters } from "../../domain/explore.ts";
import { exploreTasks } from "../../kv/explore/newest_page.ts";
import { kvPath } from "./explore_cache.ts";
import { queryKinds } from "../datasets/explore_data_queries.ts";
import { listBatchSize } from "../../kv/store/latency.ts";
import { loadAverage, markdownTable, writeResults } from "../lib/results.ts";
import { numberFlag as flag } from "../lib/flags.ts";
import { orderKey } from "../../kv/order_key.ts";
import { AsyncLocalStorage } from "node:async_hooks";

const PAGE = 20;

/** One KV call of a page: what it read and at which sequential wait it started. */
interface Call {
  /** The index layer for a cell list, else the key's first part (or `getMany`). */
  what: string;
  depth: number;
  entries: number;
  list: boolean;
  /** Order keys of a list's entries (the key's last part). */
  keys: string[];
}

interface Trace {
  finishedDepth: number;
  calls: Call[];
}

const sleep = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A handle that records every call of a traced page with the wait it started at. */
function tracing(inner: Deno.Kv) {
  const traces = new AsyncLocalStorage<Trace>();
  const timed = async <T>(call: Call, run: () => Promise<T>): Promise<T> => {
    const trace = traces.getStore();
    call.depth = (trace?.finishedDepth ?? 0) + 1;
    trace?.calls.push(call);
    const [result] = await Promise.all([run(), sleep()]);
    if (trace) trace.finishedDepth = Math.max(trace.finishedDepth, call.depth);
    return result;
  };
  const kv = new Proxy(inner, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      if (name === "get" || name === "getMany") {
        return (keys: Deno.KvKey | Deno.KvKey[], ...rest: unknown[]) => {
          const many = name === "getMany";
          const first = (many ? (keys as Deno.KvKey[])[0] : keys) as Deno.KvKey;
          const call: Call = {
            what: `${name} ${String(first?.[0])}`,
            depth: 0,
            entries: many ? (keys as Deno.KvKey[]).length : 1,
            list: false,
            keys: [],
          };
          return timed(
            call,
            () =>
              (original as (...a: unknown[]) => Promise<unknown>).apply(target, [keys, ...rest]),
          );
        };
      }
      if (name !== "list") return original.bind(target);
      return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
        const inner = (original as Deno.Kv["list"]).call(target, selector, options);
        const key = "prefix" in selector && selector.prefix !== undefined
          ? selector.prefix
          : (selector as { start: Deno.KvKey }).start;
        const what = key[0] === "xp_by_cell" ? String(key[1]) : String(key[0]);
        const batch = listBatchSize(options);
        const limit = options?.limit ?? Infinity;
        let read = 0;
        let call: Call | null = null;
        const iterator = {
          get cursor() {
            return inner.cursor;
          },
          async next() {
            let result;
            if (read % batch === 0 && read < limit) {
              call = { what, depth: 0, entries: 0, list: true, keys: [] };
              result = await timed(call, () => inner.next());
            } else result = await inner.next();
            if (!result.done) {
              read++;
              call!.entries++;
              call!.keys.push(String(result.value.key.at(-1)));
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
        return iterator as unknown as Deno.KvListIterator<unknown>;
      };
    },
  });
  return {
    kv,
    async traced<T>(work: () => Promise<T>) {
      const trace: Trace = { finishedDepth: 0, calls: [] };
      const value = await traces.run(trace, work);
      return { value, calls: trace.calls };
    },
  };
}

interface LayerSums {
  entries: number;
  needed: number;
  /** Entries that are items of the page. */
  shown: number;
  lists: number;
  /** Entries and KV calls read at the third sequential wait or later. */
  lateEntries: number;
  lateCalls: number;
  /** Pages in which this layer listed at the third wait or later. */
  latePages: number;
}

const empty = (): LayerSums => ({
  entries: 0,
  needed: 0,
  shown: 0,
  lists: 0,
  lateEntries: 0,
  lateCalls: 0,
  latePages: 0,
});

async function main() {
  const n = flag("n", 1_000_000);
  const count = flag("queries", 300);
  const match = Deno.args.find((a) => a.startsWith("--kinds="))?.slice(8) ?? "sparse area";
  const kinds = queryKinds(count).filter((k) => k.name.includes(match) && !/nearest/.test(k.name));
  const kv = await Deno.openKv(kvPath(n));
  const traced = tracing(kv);
  const sections: string[] = [];
  for (const kind of kinds) {
    const page = (query: (typeof kind.queries)[number], store: Deno.Kv) =>
      exploreTasks(store, { filters: exploreFilters(query), limit: PAGE });
    for (const query of kind.queries) await page(query, kv);
    const layers = new Map<string, LayerSums>();
    const tripsHist = new Map<number, number>();
    let pages = 0;
    let items = 0;
    for (const query of kind.queries) {
      const { value, calls } = await traced.traced(() => page(query, traced.kv));
      pages++;
      items += value.items.length;
      const trips = Math.max(0, ...calls.map((c) => c.depth));
      tripsHist.set(trips, (tripsHist.get(trips) ?? 0) + 1);
      const frontier = value.next;
      const late = new Set<string>();
      const shown = new Set(
        value.items.map((i) => orderKey(Date.parse(i.createdAt), i.id)),
      );
      for (const call of calls) {
        const sums = layers.get(call.what) ?? empty();
        layers.set(call.what, sums);
        sums.entries += call.entries;
        if (call.list) {
          sums.lists++;
          sums.needed += call.keys.filter((k) => frontier === null || k >= frontier).length;
          sums.shown += call.keys.filter((k) => shown.has(k)).length;
        }
        if (call.depth >= 3) {
          sums.lateEntries += call.entries;
          sums.lateCalls++;
          late.add(call.what);
        }
      }
      for (const what of late) layers.get(what)!.latePages++;
    }
    const per = (v: number) => (v / pages).toFixed(1);
    const rows = [...layers.entries()].sort(([a], [b]) => a.localeCompare(b)).map((
      [what, s],
    ) => [
      what,
      per(s.entries),
      per(s.needed),
      per(s.shown),
      per(s.lists),
      per(s.lateEntries),
      per(s.lateCalls),
      String(s.latePages),
    ]);
    const total = [...layers.values()].reduce((a, s) => a + s.entries, 0);
    const hist = [...tripsHist.entries()].sort(([a], [b]) => a - b).map(([t, c]) => `${t}: ${c}`)
      .join(", ");
    sections.push(
      [
        `### ${kind.name}, ${n} tasks, ${pages} first pages (${(items / pages).toFixed(1)} items)`,
        "",
        `Entries a page ${(total / pages).toFixed(1)}; pages by round trips: ${hist}.`,
        "",
        markdownTable(
          [
            "read",
            "entries / page",
            "at or above the frontier",
            "shown",
            "lists / page",
            "entries at trip ≥ 3",
            "calls at trip ≥ 3",
            "pages with a call at trip ≥ 3",
          ],
          rows,
        ),
      ].join("\n"),
    );
  }
  kv.close();
  const body = sections.join("\n\n");
  console.log(`\n${body}\n`);
  const path = await writeResults({
    name: "explore_layers",
    command: `deno task bench:explore-layers --n=${n} --queries=${count} --kinds=${match}`,
    comparedWith: "the entries each layer's streams hold at or above the page's frontier",
    body: [
      "Each query run once to warm the handle's plan memory, then traced: every KV call with the " +
      "sequential wait it starts at (kv/store/latency.ts's rule at 0 ms). A cell list is named " +
      "by its layer; 'at or above the frontier' counts the entries the page needed (order key " +
      "at or above its last item's).",
      "",
      body,
      "",
      `Load average after the run: ${loadAverage()}.`,
    ].join("\n"),
  });
  console.log(`written to ${path}`);
}

if (import.meta.main) await main();
