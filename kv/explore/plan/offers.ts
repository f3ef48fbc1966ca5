/**
 * What each filter of a query offers to drive its scan: a driver with the size its counters give
 * (read or remembered), all asked for at once; `price.ts` picks the cheapest.
 */
import { type CounterReader, type Driver, entriesSure, type PlanQuery } from "./driver.ts";
import { geoDriver } from "./geo/circle.ts";
import { bboxDriver } from "./geo/bbox.ts";
import { Payment } from "../../../domain/tasks/task.ts";
import { wordDrivers } from "./words/circle_words.ts";
import { epochDrivers } from "./words/word_epochs.ts";
import { explore } from "../../keyspace.ts";
import type { PlanMemory } from "../shared/plan_memory.ts";
import { classCounts as countClasses } from "./counters.ts";

/** What a plan is made from: counters (read or remembered) and the base driver's builders. */
export interface PlanSource {
  counts: CounterReader;
  memory: PlanMemory;
  /** Set for a plan from memory alone (see `WordPlan.dry`). */
  dry?: { missed: boolean };
  base: (sizes: number[]) => Driver;
  prefixStreams: (prefixes: Deno.KvKey[], sizes?: number[]) => Driver["streams"];
  batch: number;
}

/** The drivers offered, the query words none drives, and the tasks in all (at least 1). */
export interface Offers {
  drivers: Driver[];
  undrivenWords: string[];
  total: number;
}

export async function offerDrivers(
  kv: Deno.Kv,
  query: PlanQuery,
  source: PlanSource,
): Promise<Offers> {
  const { filters, after, work } = query;
  const { counts, base, prefixStreams, batch } = source;
  const classes: Payment[] = filters.payment === undefined
    ? [...Payment.options]
    : [filters.payment];
  // Both classes, whatever the query asks for: their sum sizes the other filters' pass rates.
  const classCounts = countClasses(counts, source.memory);
  const pending: Promise<Driver | null>[] = [
    classCounts.then((n) => base(classes.map((c) => n[Payment.options.indexOf(c)]))),
  ];
  if (filters.geo) pending.push(geoDriver(kv, counts, { ...query, geo: filters.geo }));
  if (filters.bbox) pending.push(bboxDriver(kv, counts, { ...query, bbox: filters.bbox }));
  if (filters.countryCode !== undefined) {
    const cc = filters.countryCode;
    pending.push(
      counts([explore.count("country", cc)]).then(([n]) => ({
        name: "country",
        estimate: n,
        wordsFromDocs: true,
        streams: prefixStreams([explore.byCountryPrefix(cc)], [n]),
      })),
    );
  }
  if (filters.cityName !== undefined) {
    const name = filters.cityName;
    pending.push(
      counts([explore.count("name", name, "city")]).then(([n]) => ({
        name: "cityName",
        estimate: n,
        wordsFromDocs: true,
        streams: prefixStreams([explore.byNamePrefix(name, "city")], [n]),
      })),
    );
  } else if (filters.regionName !== undefined) {
    const name = filters.regionName;
    pending.push(
      counts([explore.count("name", name, "city"), explore.count("name", name, "other")])
        .then(([a, b]) => ({
          name: "regionName",
          estimate: a + b,
          wordsFromDocs: true,
          streams: prefixStreams([
            explore.byNamePrefix(name, "city"),
            explore.byNamePrefix(name, "other"),
          ], [a, b]),
        })),
    );
  }
  const wordPending: Promise<Driver[]>[] = [];
  if (filters.search.length > 0) {
    const overflow = counts([explore.count("overflow")]).then(([n]) => n);
    const needsCards = filters.geo !== undefined || filters.bbox !== undefined ||
      filters.countryCode !== undefined || filters.cityName !== undefined ||
      filters.regionName !== undefined;
    const shared = {
      overflow,
      after,
      work,
      batch,
      geo: filters.geo ?? null,
      needsCards,
      sure: entriesSure(filters),
      memory: source.memory,
      dry: source.dry ?? null,
    };
    // Without a circle, a word's epochs are read whole: its zones are not worth listing.
    const drive = filters.geo ? wordDrivers : epochDrivers;
    for (const word of filters.search) wordPending.push(drive(kv, word, shared));
  }
  const words = await Promise.all(wordPending);
  const drivers = [
    ...(await Promise.all(pending)).filter((d): d is Driver => d !== null),
    ...words.flat(),
  ];
  return {
    drivers,
    undrivenWords: filters.search.filter((_, i) => words[i].length === 0),
    total: Math.max(1, (await classCounts).reduce((a, b) => a + b, 0)),
  };
}
