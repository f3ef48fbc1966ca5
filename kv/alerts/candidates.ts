/**
 * The read side of the alerts' inverted index: the alerts a new task may match, from its probes
 * (domain/alerts/anchors.ts): one list per name, country and geo cell, and the word pages (with
 * the page of alerts filed under nothing) ten keys to a `getMany`. Never a read of every alert.
 */
import type { TaskProbes } from "../../domain/alerts/anchors.ts";
import { alerts } from "../keyspace.ts";
import { ANY_PAGE, decodePage, type IndexedAlert } from "./index.ts";

const GETMANY_MAX = 10;
const LIST_BATCH = 1_000;

/** What a lookup found, and what it cost. */
export interface Candidates {
  alerts: IndexedAlert[];
  /** Store reads: list batches and getMany calls. */
  reads: number;
}

async function listed(kv: Deno.Kv, prefix: Deno.KvKey): Promise<[IndexedAlert[], number]> {
  const found: IndexedAlert[] = [];
  for await (const entry of kv.list<IndexedAlert>({ prefix }, { batchSize: LIST_BATCH })) {
    found.push(entry.value);
  }
  return [found, 1 + Math.floor(found.length / LIST_BATCH)];
}

async function pagesOf(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<(Uint8Array | null)[]> {
  const groups: Deno.KvKey[][] = [];
  for (let i = 0; i < keys.length; i += GETMANY_MAX) groups.push(keys.slice(i, i + GETMANY_MAX));
  const read = await Promise.all(groups.map((g) => kv.getMany<Uint8Array[]>(g)));
  return read.flat().map((e) => e.value);
}

/**
 * The alerts filed where `probes` look, each once. All reads go out at once; the further word
 * pages after, except those of the page every task reads (`*`), read ahead in the room the first
 * `getMany` calls leave, since a page it needs there costs no call of its own.
 */
export async function findCandidates(kv: Deno.Kv, probes: TaskProbes): Promise<Candidates> {
  const prefixes = [
    ...probes.names.map((n) => alerts.byNamePrefix(n)),
    ...probes.countries.map((c) => alerts.byCountryPrefix(c)),
    ...probes.geo.map((g) => alerts.byCellPrefix(g.layer, g.cell)),
  ];
  const places = [...probes.words, ANY_PAGE];
  const heads = places.map((w) => alerts.wordPage(w, 0));
  const room = (GETMANY_MAX - heads.length % GETMANY_MAX) % GETMANY_MAX;
  const ahead = Array.from({ length: room }, (_, i) => alerts.wordPage(ANY_PAGE, i + 1));
  const [lists, firstPages] = await Promise.all([
    Promise.all(prefixes.map((p) => listed(kv, p))),
    pagesOf(kv, [...heads, ...ahead]),
  ]);
  let reads = lists.reduce((sum, [, r]) => sum + r, 0) + Math.ceil(heads.length / GETMANY_MAX);
  const found = lists.flatMap(([entries]) => entries);
  const more: Deno.KvKey[] = [];
  places.forEach((place, i) => {
    const page = decodePage(firstPages[i]);
    found.push(...page.entries);
    for (let n = 1; n <= (page.more ?? 0); n++) {
      if (place === ANY_PAGE && n <= room) {
        found.push(...decodePage(firstPages[heads.length + n - 1]).entries);
      } else more.push(alerts.wordPage(place, n));
    }
  });
  if (more.length > 0) {
    for (const bytes of await pagesOf(kv, more)) found.push(...decodePage(bytes).entries);
    reads += Math.ceil(more.length / GETMANY_MAX);
  }
  const unique = new Map(found.map((a) => [a.id, a]));
  return { alerts: [...unique.values()], reads };
}
