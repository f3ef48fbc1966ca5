/**
 * Data for the explore benchmark: task number i is a pure function of (seed, i, n), so the loader,
 * the brute-force scan and the Redis peer can each regenerate the same tasks without keeping
 * them, and the query lists are fixed for every size.
 */
import type { ExploreFilterQuery } from "../domain/explore.ts";
import type { Location, TaskRecord } from "../domain/task.ts";
import { INDEX_LAYOUT } from "../kv/index_layout.ts";
import { orderKey } from "../kv/order_key.ts";
import { seededRandom } from "../scripts/seeded_random.ts";

/**
 * Names the cached KV files, so that one of another version is rebuilt: the store's index layout
 * (kv/index_layout.ts), since the generated data has not changed; should it, add a revision.
 */
export const DATA_VERSION = INDEX_LAYOUT;

interface City {
  name: string;
  cc: string;
  currency: string;
  lon: number;
  lat: number;
  sigmaKm: number;
}

const c = (
  name: string,
  cc: string,
  currency: string,
  lon: number,
  lat: number,
  sigmaKm = 15,
): City => ({ name, cc, currency, lon, lat, sigmaKm });

/** 50 large cities, roughly by population: the 80% of tasks that cluster. */
export const CITIES: readonly City[] = [
  c("Tokyo", "JP", "JPY", 139.6917, 35.6895, 25),
  c("Delhi", "IN", "INR", 77.1025, 28.7041, 20),
  c("Shanghai", "CN", "CNY", 121.4737, 31.2304, 20),
  c("São Paulo", "BR", "BRL", -46.6333, -23.5505, 20),
  c("Ciudad de México", "MX", "MXN", -99.1332, 19.4326, 18),
  c("Cairo", "EG", "EGP", 31.2357, 30.0444),
  c("Mumbai", "IN", "INR", 72.8777, 19.076),
  c("Beijing", "CN", "CNY", 116.4074, 39.9042, 20),
  c("Dhaka", "BD", "BDT", 90.4125, 23.8103, 10),
  c("Ōsaka", "JP", "JPY", 135.5023, 34.6937),
  c("New York", "US", "USD", -74.006, 40.7128, 20),
  c("Karachi", "PK", "PKR", 67.0099, 24.8615),
  c("Buenos Aires", "AR", "ARS", -58.3816, -34.6037, 18),
  c("İstanbul", "TR", "TRY", 28.9784, 41.0082),
  c("Kolkata", "IN", "INR", 88.3639, 22.5726),
  c("Manila", "PH", "PHP", 120.9842, 14.5995),
  c("Lagos", "NG", "NGN", 3.3792, 6.5244),
  c("Rio de Janeiro", "BR", "BRL", -43.1729, -22.9068),
  c("Guangzhou", "CN", "CNY", 113.2644, 23.1291),
  c("Los Angeles", "US", "USD", -118.2437, 34.0522, 25),
  c("Moskva", "RU", "RUB", 37.6173, 55.7558, 18),
  c("Kinshasa", "CD", "CDF", 15.2663, -4.4419),
  c("Paris", "FR", "EUR", 2.3522, 48.8566),
  c("Jakarta", "ID", "IDR", 106.8456, -6.2088),
  c("London", "GB", "GBP", -0.1276, 51.5072, 18),
  c("Lima", "PE", "PEN", -77.0428, -12.0464),
  c("Bangkok", "TH", "THB", 100.5018, 13.7563),
  c("Seoul", "KR", "KRW", 126.978, 37.5665),
  c("Bogotá", "CO", "COP", -74.0721, 4.711, 12),
  c("Chicago", "US", "USD", -87.6298, 41.8781),
  c("Tehran", "IR", "IRR", 51.389, 35.6892),
  c("Ho Chi Minh City", "VN", "VND", 106.6297, 10.8231),
  c("Hong Kong", "HK", "HKD", 114.1694, 22.3193, 10),
  c("Madrid", "ES", "EUR", -3.7038, 40.4168),
  c("Toronto", "CA", "CAD", -79.3832, 43.6532),
  c("Berlin", "DE", "EUR", 13.405, 52.52),
  c("Sydney", "AU", "AUD", 151.2093, -33.8688, 20),
  c("Johannesburg", "ZA", "ZAR", 28.0473, -26.2041),
  c("Nairobi", "KE", "KES", 36.8219, -1.2921, 12),
  c("Singapore", "SG", "SGD", 103.8198, 1.3521, 10),
  c("Riyadh", "SA", "SAR", 46.6753, 24.7136),
  c("Santiago", "CL", "CLP", -70.6693, -33.4489),
  c("Milano", "IT", "EUR", 9.19, 45.4642, 12),
  c("Barcelona", "ES", "EUR", 2.1734, 41.3851, 12),
  c("Montréal", "CA", "CAD", -73.5674, 45.5019, 12),
  c("Melbourne", "AU", "AUD", 144.9631, -37.8136, 20),
  c("San Francisco", "US", "USD", -122.4194, 37.7749, 20),
  c("München", "DE", "EUR", 11.582, 48.1351, 12),
  c("Warszawa", "PL", "PLN", 21.0122, 52.2297, 12),
  c("Auckland", "NZ", "NZD", 174.7633, -36.8485, 12),
];

// Bigger cities get more tasks (Zipf-like, exponent 0.7): Tokyo ~5.6%, Auckland ~1.1%.
const CITY_CUMULATIVE: number[] = (() => {
  const weights = CITIES.map((_, rank) => 1 / (rank + 1) ** 0.7);
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  return weights.map((w) => (sum += w / total));
})();

interface LandBox {
  cc: string;
  currency: string;
  west: number;
  south: number;
  east: number;
  north: number;
}

const box = (
  cc: string,
  currency: string,
  west: number,
  south: number,
  east: number,
  north: number,
): LandBox => ({ cc, currency, west, south, east, north });

/** Rough rectangles inside large land masses: where the 20% of scattered tasks fall. */
export const LAND: readonly LandBox[] = [
  box("US", "USD", -120, 33, -80, 47),
  box("CA", "CAD", -120, 50, -75, 60),
  box("BR", "BRL", -60, -25, -40, -5),
  box("AR", "ARS", -70, -45, -60, -25),
  box("RU", "RUB", 40, 52, 130, 68),
  box("KZ", "KZT", 50, 42, 85, 52),
  box("CN", "CNY", 90, 25, 118, 45),
  box("IN", "INR", 73, 12, 87, 28),
  box("AU", "AUD", 117, -33, 150, -20),
  box("DZ", "DZD", -5, 20, 10, 32),
  box("NE", "XOF", 2, 13, 15, 22),
  box("CD", "CDF", 15, -10, 30, 2),
  box("ZA", "ZAR", 18, -33, 31, -24),
  box("FR", "EUR", -1, 43, 6, 49),
  box("MN", "MNT", 90, 43, 115, 50),
];

const LAND_CUMULATIVE: number[] = (() => {
  const area = LAND.map((b) =>
    (b.east - b.west) *
    Math.abs(Math.sin(b.north * Math.PI / 180) - Math.sin(b.south * Math.PI / 180))
  );
  const total = area.reduce((a, b) => a + b, 0);
  let sum = 0;
  return area.map((w) => (sum += w / total));
})();

const ACTIONS = [
  "Help with",
  "Need someone for",
  "Looking for help with",
  "Quick job:",
  "Weekend help:",
  "Urgent:",
  "Volunteer needed for",
  "Paid gig:",
];
const JOBS = [
  "moving boxes to a new flat",
  "painting a small bedroom",
  "cleaning windows before winter",
  "garden tidy-up and hedge trimming",
  "assembling flat-pack furniture",
  "fixing a leaking kitchen tap",
  "walking a friendly labrador",
  "tutoring maths for a teenager",
  "English conversation practice",
  "setting up a home Wi-Fi network",
  "photographing products for an online shop",
  "sorting donations at the food bank",
  "repairing a bicycle puncture",
  "mounting a television on the wall",
  "translating a short letter",
  "babysitting on Friday evening",
  "grocery shopping for an elderly neighbour",
  "cooking for a birthday party",
  "carrying a washing machine upstairs",
  "installing shelves in the garage",
  "déménagement d'un studio",
  "peinture d'une cuisine",
  "cours de guitare pour débutant",
  "Umzug innerhalb der Stadt",
  "Gartenarbeit am Wochenende",
  "limpieza de un piso pequeño",
  "mudanza de muebles",
  "aulas de violão",
  "pulizia della cantina",
  "reparar una persiana",
];
const SENTENCES = [
  "It should take about two hours.",
  "Tools and materials are provided.",
  "Please bring your own gloves.",
  "The flat is on the third floor with no lift.",
  "Flexible on the exact day and time.",
  "Payment in cash or by transfer once finished.",
  "Ideal for a student looking for extra money.",
  "Experience is a plus but not required.",
  "Parking is available in front of the building.",
  "We can offer coffee and lunch.",
  "The work must be finished before the end of the month.",
  "Quiet neighbourhood, close to the metro station.",
  "A van is already booked for the morning.",
  "Looking for someone reliable and careful.",
  "Happy to help in return with something else.",
  "Photos of the place can be sent on request.",
  "Le travail est simple mais demande de la patience.",
  "Das Material ist schon gekauft.",
  "El trabajo es urgente, antes del sábado.",
  "Non serve esperienza, solo buona volontà.",
];

/** Uncommon words: one task in 20 names one of them, so each stays rare at every size. */
export const RARE_WORDS = [
  "harpsichord",
  "taxidermy",
  "aquarium",
  "beekeeping",
  "calligraphy",
  "chandelier",
  "didgeridoo",
  "embroidery",
  "falconry",
  "gramophone",
  "hammock",
  "igloo",
  "jacuzzi",
  "kayak",
  "lathe",
  "marionette",
  "narwhal",
  "origami",
  "pianola",
  "quilting",
  "rickshaw",
  "sauna",
  "telescope",
  "ukulele",
  "vinyl",
  "woodturning",
  "xylophone",
  "yurt",
  "zither",
  "abacus",
  "bonsai",
  "canoe",
  "dovecote",
  "easel",
  "fountain",
  "greenhouse",
  "hovercraft",
  "incubator",
  "jukebox",
  "kiln",
  "loom",
  "metronome",
  "nebulizer",
  "obelisk",
  "pergola",
  "quern",
  "rotisserie",
  "sextant",
  "trampoline",
  "unicycle",
];

/** Query words found in a large share of tasks. */
export const COMMON_WORDS = ["help", "the", "for", "please", "work"];

const FIRST = ["North", "East", "West", "South", "Upper", "Lower", "New", "Old", "Little", "Great"];
const STEMS = ["brook", "field", "ford", "ham", "wood", "vale", "ridge", "stone", "water", "moor"];

function pickCumulative(cumulative: number[], r: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const HEX = "0123456789abcdef";

function uuid(rnd: () => number): string {
  let s = "";
  for (let i = 0; i < 32; i++) {
    if (i === 12) s += "4";
    else if (i === 16) s += "a";
    else s += HEX[Math.floor(rnd() * 16)];
  }
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

function gaussian(rnd: () => number): number {
  const u = 1 - rnd();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

const KM_PER_DEGREE = 111.32;

function pick<T>(list: readonly T[], rnd: () => number): T {
  return list[Math.floor(rnd() * list.length)];
}

/** The newest task is created at this instant; older ones one by one before it. */
const END_MS = Date.UTC(2026, 10, 1);
const SPAN_MS = 365 * 24 * 3600 * 1000;

function radiusKm(rnd: () => number): number {
  const r = rnd();
  // Every radius class of the geo index: ≤25, ≤100, ≤500 km.
  if (r < 0.6) return 1 + Math.floor(rnd() * 25);
  if (r < 0.9) return 26 + Math.floor(rnd() * 75);
  return 101 + Math.floor(rnd() * 400);
}

function clamp(v: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, v));
}

function location(rnd: () => number): { location: Location; currency: string } {
  const r = rnd();
  if (r < 0.03) {
    return {
      location: { type: "world", name: "Remote", coordinates: [0, 0] },
      currency: "USD",
    };
  }
  let lon: number, lat: number, cc: string, currency: string, name: string;
  if (r < 0.83) {
    const city = CITIES[pickCumulative(CITY_CUMULATIVE, rnd())];
    lat = clamp(city.lat + gaussian(rnd) * city.sigmaKm / KM_PER_DEGREE, -89.9, 89.9);
    const lonScale = KM_PER_DEGREE * Math.cos(lat * Math.PI / 180);
    lon = clamp(city.lon + gaussian(rnd) * city.sigmaKm / lonScale, -180, 180);
    cc = city.cc;
    currency = city.currency;
    name = city.name;
  } else {
    const land = LAND[pickCumulative(LAND_CUMULATIVE, rnd())];
    lon = land.west + rnd() * (land.east - land.west);
    const s = Math.sin(land.south * Math.PI / 180);
    const n = Math.sin(land.north * Math.PI / 180);
    lat = Math.asin(s + rnd() * (n - s)) * 180 / Math.PI;
    cc = land.cc;
    currency = land.currency;
    name = `${pick(FIRST, rnd)}${pick(STEMS, rnd)}`;
  }
  const coordinates: [number, number] = [
    Math.round(lon * 1e5) / 1e5,
    Math.round(lat * 1e5) / 1e5,
  ];
  const t = rnd();
  if (t < 0.75) {
    return { location: { type: "city", name, countryCode: cc, coordinates }, currency };
  }
  if (t < 0.95) {
    return {
      location: { type: "radius", name, countryCode: cc, coordinates, radiusKm: radiusKm(rnd) },
      currency,
    };
  }
  return { location: { type: "country", name: cc, countryCode: cc, coordinates }, currency };
}

/** Task number `i` of `n`: older for smaller i, the same for every run. */
export function generateTask(i: number, n: number, seed = 1): TaskRecord {
  const rnd = seededRandom(seed * 0x9e3779b1 + i * 2654435761);
  rnd();
  // Ids and authors follow creation order (random otherwise), so that the bulk load appends to
  // the record and per-user indexes; explore reads neither.
  const id = `${i.toString(16).padStart(8, "0")}${uuid(rnd).slice(8)}`;
  const userId = `00000000-0000-4000-a000-${
    (Math.floor(i / 20) % 50_000).toString(16).padStart(12, "0")
  }`;
  const at = END_MS - Math.floor(((n - 1 - i) / n) * SPAN_MS);
  const createdAt = new Date(at).toISOString();
  const { location: loc, currency } = location(rnd);
  const job = pick(JOBS, rnd);
  let title = `${pick(ACTIONS, rnd)} ${job}`;
  const sentences = [`${job[0].toUpperCase()}${job.slice(1)} in ${loc.name}.`];
  const count = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < count; k++) sentences.push(pick(SENTENCES, rnd));
  if (rnd() < 0.05) {
    const rare = pick(RARE_WORDS, rnd);
    if (rnd() < 0.5) title += ` (${rare})`;
    else sentences.push(`Bonus: there is a ${rare} to deal with too.`);
  }
  const paid = rnd() < 0.75;
  const budget = paid ? 10 + Math.floor(rnd() * 290) : 0;
  return {
    id,
    userId,
    title,
    description: sentences.join(" "),
    budget,
    currency,
    location: loc,
    requirement: "Reliable, punctual and friendly",
    dueDate: null,
    maxPeople: 1 + Math.floor(rnd() * 3),
    images: [],
    status: "published",
    createdAt,
    updatedAt: createdAt,
    completedAt: null,
    deletedAt: null,
    orderKey: orderKey(at, id),
  };
}

/** A named set of queries of one kind, as the route receives them (validated query members). */
export interface QueryKind {
  name: string;
  queries: ExploreFilterQuery[];
}

/**
 * The measured query kinds, `count` queries each, varied (city, word, country) so that no
 * single cached answer is timed; identical for every size.
 */
export function queryKinds(count: number): QueryKind[] {
  const rnd = seededRandom(4242);
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
