/**
 * The read side of the alerts' inverted index: the alerts a new task may match, from its probes
 * (domain/alerts/anchors.ts): the pages of its name, country, geo cells and word starts, and the
 * page of alerts filed under nothing (and layout 1's lists while some remain). First the places'
 * stamps, ten to a `getMany`; then only the pages this instance has not decoded under their
 * tokens. Never a read of every alert.
 */
import type { TaskProbes } from "../../domain/alerts/anchors.ts";
import { getEntries } from "../store/get_all.ts";
import { GETMANY_MAX } from "../store/limits.ts";
import { legacyCandidates, legacyPresent } from "./legacy.ts";
import { type DecodedPage, decodedPage, rememberedPage } from "./page_memo.ts";
import {
  ANY_PAGE,
  type IndexedAlert,
  pageKey,
  type Place,
  placeId,
  type Stamp,
  stampKey,
} from "./pages.ts";

/** What a lookup found, and what it cost. */
export interface Candidates {
  alerts: IndexedAlert[];
  /** Store reads: getMany calls, and list batches where entries of layout 1 remain. */
  reads: number;
}

/** Where `probes` look. */
function placesOf(probes: TaskProbes): Place[] {
  return [
    ...probes.names.map((at): Place => ({ family: "n", at })),
    ...probes.countries.map((at): Place => ({ family: "c", at })),
    ...probes.geo.map((g): Place => ({ family: "g", at: `${g.layer}:${g.cell}` })),
    ...probes.words.map((at): Place => ({ family: "w", at })),
    { family: "w", at: ANY_PAGE },
  ];
}

const calls = (keys: number) => Math.ceil(keys / GETMANY_MAX);

/** A page to read: its place and number, and its memory id when its place has a stamp. */
interface Wanted {
  place: Place;
  n: number;
  id?: string;
}

async function readPages(kv: Deno.Kv, wanted: Wanted[]): Promise<DecodedPage[]> {
  const read = await getEntries<Uint8Array>(kv, wanted.map((w) => pageKey(w.place, w.n)));
  return read.map((entry, i) => decodedPage(kv, entry, wanted[i].id));
}

/**
 * The alerts filed where `probes` look, each once. The stamps say which pages each place has and
 * their tokens: pages held in memory under those tokens cost no read, the rest are read at once.
 * A place without a stamp holds nothing, unless the store is not yet brought up from an older
 * layout (kv/alerts/legacy.ts): then its page 0 is read, then its further pages.
 */
export async function findCandidates(kv: Deno.Kv, probes: TaskProbes): Promise<Candidates> {
  const places = placesOf(probes);
  const older = legacyPresent(kv);
  const [stamps, legacy] = await Promise.all([
    getEntries<Stamp>(kv, places.map(stampKey)),
    older ? legacyCandidates(kv, probes) : null,
  ]);
  let reads = calls(places.length) + (legacy?.reads ?? 0);
  const found: DecodedPage[] = [];
  const wanted: Wanted[] = [];
  for (const [i, place] of places.entries()) {
    const stamp = stamps[i].value;
    if (!stamp) {
      // Nothing is filed there, unless the store still holds places written before stamps.
      if (older) wanted.push({ place, n: 0 });
      continue;
    }
    for (const [n, token] of stamp.pages.entries()) {
      const id = `${placeId(place)}/${n}@${token}`;
      const page = rememberedPage(kv, id);
      if (page) found.push(page);
      else wanted.push({ place, n, id });
    }
  }
  if (wanted.length > 0) {
    const read = await readPages(kv, wanted);
    reads += calls(wanted.length);
    found.push(...read);
    const further = wanted.flatMap((w, i) =>
      w.id === undefined
        ? Array.from({ length: read[i].more }, (_, k): Wanted => ({ place: w.place, n: k + 1 }))
        : []
    );
    if (further.length > 0) {
      found.push(...await readPages(kv, further));
      reads += calls(further.length);
    }
  }
  const unique = new Map<string, IndexedAlert>();
  for (const page of found) {
    for (const alert of page.entries) unique.set(alert.id, alert);
  }
  for (const alert of legacy?.alerts ?? []) unique.set(alert.id, alert);
  return { alerts: [...unique.values()], reads };
}
