/**
 * The explore benchmark's queries: named sets of one kind each (cities, circles, words, ...) drawn
 * from the synthetic data's places and words (`bench/datasets/explore_data_places.ts`,
 * `bench/datasets/explore_data_words.ts`), and their query strings.
 */
import type { ExploreFilterQuery } from "../../domain/explore.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { CITIES, KM_PER_DEGREE, LAND } from "./explore_data_places.ts";
import { COMMON_WORDS, RARE_WORDS } from "./explore_data_words.ts";

/** A named set of queries of one kind, as the route receives them (validated query members). */
export interface QueryKind {
  name: string;
  queries: ExploreFilterQuery[];
}

/**
 * The measured query kinds, `count` queries each, varied (city, word, country) so that no
 * single cached answer is timed; identical for every size. Another `seed` draws other points
 * of the same kinds (a warm-up that does not read the timed pages first).
 */
export function queryKinds(count: number, seed = 4242): QueryKind[] {
  const rnd = seededRandom(seed);
  const dense = CITIES.slice(0, 10);
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  const near = (k: number) => {
    const city = dense[k % dense.length];
    const jitter = 3 / KM_PER_DEGREE;
    return {
      longitude: round(city.lon + (rnd() - 0.5) * 2 * jitter),
      latitude: round(city.lat + (rnd() - 0.5) * 2 * jitter),
    };
  };
  const sparse = () => {
    const land = LAND[Math.floor(rnd() * LAND.length)];
    return {
      longitude: round(land.west + rnd() * (land.east - land.west)),
      latitude: round(land.south + rnd() * (land.north - land.south)),
    };
  };
  const make = (name: string, f: (k: number) => ExploreFilterQuery): QueryKind => ({
    name,
    queries: Array.from({ length: count }, (_, k) => f(k)),
  });
  const countries = [...new Set(CITIES.map((c) => c.cc))];
  return [
    make("no filter", () => ({})),
    make("geo 10 km, dense city", (k) => ({ ...near(k), radiusKm: 10 })),
    make("geo 100 km, dense city", (k) => ({ ...near(k), radiusKm: 100 })),
    make("geo 500 km, dense city", (k) => ({ ...near(k), radiusKm: 500 })),
    make("geo 50 km, sparse area", () => ({ ...sparse(), radiusKm: 50 })),
    make("cityName", (k) => ({ cityName: CITIES[k % CITIES.length].name })),
    make("countryCode", (k) => ({ countryCode: countries[k % countries.length].toLowerCase() })),
    make("search, rare word", (k) => ({ search: RARE_WORDS[k % RARE_WORDS.length] })),
    make("search, common word", (k) => ({ search: COMMON_WORDS[k % COMMON_WORDS.length] })),
    make("geo 100 km + search + payment", (k) => ({
      ...near(k),
      radiusKm: 100,
      search: ["mov", "paint", "garden", "clean", "help"][k % 5],
      payment: k % 3 === 0 ? "Pro-bono" : "Paid",
    })),
    make("nearest, 10 km, dense city", (k) => ({ ...near(k), radiusKm: 10, sort: "distance" })),
    make("nearest, 100 km, dense city", (k) => ({ ...near(k), radiusKm: 100, sort: "distance" })),
    make("nearest, 500 km, dense city", (k) => ({ ...near(k), radiusKm: 500, sort: "distance" })),
    make("nearest, 50 km, sparse area", () => ({ ...sparse(), radiusKm: 50, sort: "distance" })),
    make("bbox, city viewport", (k) => {
      const { longitude, latitude } = near(k);
      return {
        bbox: {
          minLon: round(longitude - 0.1),
          minLat: round(latitude - 0.06),
          maxLon: round(longitude + 0.1),
          maxLat: round(latitude + 0.06),
        },
      };
    }),
    make("bbox, region viewport", (k) => {
      const { longitude, latitude } = near(k);
      return {
        bbox: {
          minLon: round(longitude - 2),
          minLat: round(latitude - 1.2),
          maxLon: round(longitude + 2),
          maxLat: round(latitude + 1.2),
        },
      };
    }),
    make("bbox, across the antimeridian", () => ({
      bbox: { minLon: 170, minLat: -25, maxLon: -170, maxLat: -10 },
    })),
  ];
}

/** The query string of a query, for the HTTP measurements. */
export function queryString(query: ExploreFilterQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (name === "bbox" && query.bbox) {
      const b = query.bbox;
      params.set(name, [b.minLon, b.minLat, b.maxLon, b.maxLat].join(","));
    } else params.set(name, String(value));
  }
  return params.toString();
}
