/**
 * The read side of the alerts' inverted index: the alerts a new task may match, from its probes
 * (domain/alerts/anchors.ts): one list per name, country and geo cell, and the word pages (with
 * the page of alerts filed under nothing) ten keys to a `getMany`. Never a read of every alert.
 */
import type { TaskProbes } from "../../domain/alerts/anchors.ts";
import { alerts } from "../keyspace.ts";
import { ANY_PAGE, type IndexedAlert } from "./index.ts";
import {
  type Candidate,
  candidateOf,
  decodedPage,
  lastKnownMore,
  rememberMore,
} from "./page_memo.ts";

const GETMANY_MAX = 10;
const LIST_BATCH = 1_000;

/** What a lookup found, and what it cost. */
export interface Candidates {
  alerts: Candidate[];
  /** Store reads: list batches and getMany calls. */
  reads: number;
}

async function listed(kv: Deno.Kv, prefix: Deno.KvKey): Promise<[Candidate[], number]> {
  const found: Candidate[] = [];
  for await (const entry of kv.list<IndexedAlert>({ prefix }, { batchSize: LIST_BATCH })) {
    found.push(candidateOf(entry.value));
  }
  return [found, 1 + Math.floor(found.length / LIST_BATCH)];
}

async function pagesOf(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<Uint8Array>[]> {
  const groups: Deno.KvKey[][] = [];
  for (let i = 0; i < keys.length; i += GETMANY_MAX) groups.push(keys.slice(i, i + GETMANY_MAX));
  const read = await Promise.all(groups.map((g) => kv.getMany<Uint8Array[]>(g)));
  return read.flat();
}

/**
 * The further pages to read ahead in `room` keys: those of `*` (read by every task; all the room
 * when its count is not remembered), then of the task's starts this instance last saw with some.
 */
function readAhead(kv: Deno.Kv, places: string[], room: number): [string, number][] {
  const ahead: [string, number][] = [];
  for (const place of [ANY_PAGE, ...places.filter((p) => p !== ANY_PAGE)]) {
    const known = lastKnownMore(kv, place) ?? (place === ANY_PAGE ? room : 0);
    for (let n = 1; n <= known && ahead.length < room; n++) ahead.push([place, n]);
  }
  return ahead;
}

/**
 * The alerts filed where `probes` look, each once. All reads go out at once; the further word
 * pages after, except those that fit in the room the first `getMany` calls leave (`readAhead`),
 * since a page needed there costs no call of its own.
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
  const ahead = readAhead(kv, places, room);
  const aheadAt = new Map(ahead.map(([place, n], i) => [`${n}:${place}`, heads.length + i]));
  const [lists, firstPages] = await Promise.all([
    Promise.all(prefixes.map((p) => listed(kv, p))),
    pagesOf(kv, [...heads, ...ahead.map(([place, n]) => alerts.wordPage(place, n))]),
  ]);
  let reads = lists.reduce((sum, [, r]) => sum + r, 0) + Math.ceil(heads.length / GETMANY_MAX);
  const unique = new Map<string, Candidate>();
  const add = (found: readonly Candidate[]) => {
    for (const alert of found) unique.set(alert.id, alert);
  };
  for (const [found] of lists) add(found);
  const more: Deno.KvKey[] = [];
  places.forEach((place, i) => {
    const page = decodedPage(kv, firstPages[i]);
    rememberMore(kv, place, page.more);
    add(page.entries);
    for (let n = 1; n <= page.more; n++) {
      const at = aheadAt.get(`${n}:${place}`);
      if (at !== undefined) add(decodedPage(kv, firstPages[at]).entries);
      else more.push(alerts.wordPage(place, n));
    }
  });
  if (more.length > 0) {
    for (const entry of await pagesOf(kv, more)) add(decodedPage(kv, entry).entries);
    reads += Math.ceil(more.length / GETMANY_MAX);
  }
  return { alerts: [...unique.values()], reads };
}
