/**
 * The read side of the alerts' inverted index: the alerts a new task may match, from its probes
 * (domain/alerts/anchors.ts): the pages of its name, country, geo cells and word starts, and the
 * page of alerts filed under nothing, ten keys to a `getMany` (and layout 1's lists while some
 * remain). Never a read of every alert.
 */
import type { TaskProbes } from "../../domain/alerts/anchors.ts";
import { getEntries } from "../store/get_all.ts";
import { GETMANY_MAX } from "../store/limits.ts";
import { legacyCandidates, legacyPresent } from "./legacy.ts";
import {
  type Candidate,
  type DecodedPage,
  decodedPage,
  lastKnownMore,
  rememberMore,
} from "./page_memo.ts";
import { ANY_PAGE, pageKey, type Place, placeId } from "./pages.ts";

/** What a lookup found, and what it cost. */
export interface Candidates {
  alerts: Candidate[];
  /** Store reads: getMany calls, and list batches where entries of layout 1 remain. */
  reads: number;
}

const ANY: Place = { family: "w", at: ANY_PAGE };

/** Where `probes` look, `*` last. */
function placesOf(probes: TaskProbes): Place[] {
  return [
    ...probes.names.map((at): Place => ({ family: "n", at })),
    ...probes.countries.map((at): Place => ({ family: "c", at })),
    ...probes.geo.map((g): Place => ({ family: "g", at: `${g.layer}:${g.cell}` })),
    ...probes.words.map((at): Place => ({ family: "w", at })),
    ANY,
  ];
}

/**
 * The further pages to read ahead in `room` keys: those of `*` (read by every task; all the room
 * when its count is not remembered), then of the task's places this instance last saw with some.
 */
function readAhead(kv: Deno.Kv, places: Place[], room: number): [Place, number][] {
  const ahead: [Place, number][] = [];
  for (const place of [ANY, ...places.slice(0, -1)]) {
    const known = lastKnownMore(kv, placeId(place)) ?? (place === ANY ? room : 0);
    for (let n = 1; n <= known && ahead.length < room; n++) ahead.push([place, n]);
  }
  return ahead;
}

/**
 * The alerts filed where `probes` look, each once. Page 0 of every place goes out at once; the
 * further pages after, except those that fit in the room the first `getMany` calls leave
 * (`readAhead`), since a page needed there costs no call of its own.
 */
export async function findCandidates(kv: Deno.Kv, probes: TaskProbes): Promise<Candidates> {
  const places = placesOf(probes);
  const heads = places.map((place) => pageKey(place, 0));
  const room = (GETMANY_MAX - heads.length % GETMANY_MAX) % GETMANY_MAX;
  const ahead = readAhead(kv, places, room);
  const aheadAt = new Map(ahead.map(([place, n], i) => [`${n}:${placeId(place)}`, i]));
  const [first, legacy] = await Promise.all([
    getEntries<Uint8Array>(kv, [...heads, ...ahead.map(([place, n]) => pageKey(place, n))]),
    legacyPresent(kv) ? legacyCandidates(kv, probes) : null,
  ]);
  let reads = Math.ceil(first.length / GETMANY_MAX) + (legacy?.reads ?? 0);
  const unique = new Map<string, Candidate>();
  const add = (page: DecodedPage) => {
    for (const alert of page.entries) unique.set(alert.id, alert);
  };
  const more: Deno.KvKey[] = [];
  places.forEach((place, i) => {
    const page = decodedPage(kv, first[i]);
    rememberMore(kv, placeId(place), page.more);
    add(page);
    for (let n = 1; n <= page.more; n++) {
      const at = aheadAt.get(`${n}:${placeId(place)}`);
      if (at !== undefined) add(decodedPage(kv, first[heads.length + at]));
      else more.push(pageKey(place, n));
    }
  });
  if (more.length > 0) {
    for (const entry of await getEntries<Uint8Array>(kv, more)) add(decodedPage(kv, entry));
    reads += Math.ceil(more.length / GETMANY_MAX);
  }
  for (const alert of legacy?.alerts ?? []) unique.set(alert.id, alert);
  return { alerts: [...unique.values()], reads };
}
