/**
 * Explore test data: seeded random tasks that crowd the index's edge cases (clusters, empty
 * areas, the antimeridian, the poles, radius circles of every class, accents and case), the
 * brute-force reference, and a pager that walks every page of a query.
 */
import type { ExploreFilters, ExploreLocation, ExploreTask } from "../domain/explore.ts";
import { matchExplore, normalizeName } from "../domain/explore.ts";
import { queryWords } from "../domain/text.ts";
import { exploreCounterKeys, exploreIndexEntries, searchTerms } from "../kv/explore_index.ts";
import { type ExploreOptions, type ExploreResult, exploreTasks } from "../kv/explore_query.ts";

/** A small seeded generator (mulberry32), so that every run sees the same data. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Order key: time part from createdAt, the rest from the id, as the tasks store makes it. */
export function orderKeyOf(createdAtMs: number, id: string): string {
  let value = (BigInt(createdAtMs) << 80n) | BigInt(`0x${id.replaceAll("-", "").slice(0, 20)}`);
  let out = "";
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

function uuid(rnd: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rnd() * 16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${
    hex.slice(20)
  }`;
}

export interface Place {
  name: string;
  lon: number;
  lat: number;
  cc?: string;
  sigmaKm: number;
}

/** Clustered places, some where geometry is hard. */
export const PLACES: Place[] = [
  { name: "Paris", lon: 2.3522, lat: 48.8566, cc: "FR", sigmaKm: 15 },
  { name: "Saint-Étienne", lon: 4.3872, lat: 45.4397, cc: "FR", sigmaKm: 8 },
  { name: "München", lon: 11.582, lat: 48.1351, cc: "DE", sigmaKm: 12 },
  { name: "São Paulo", lon: -46.6333, lat: -23.5505, cc: "BR", sigmaKm: 20 },
  { name: "Suva", lon: 178.4419, lat: -18.1416, cc: "FJ", sigmaKm: 40 },
  { name: "Taveuni", lon: 179.98, lat: -16.8, cc: "FJ", sigmaKm: 30 },
  { name: "Anadyr", lon: -179.9, lat: 64.73, cc: "RU", sigmaKm: 30 },
  { name: "North Pole Camp", lon: 10, lat: 89.95, sigmaKm: 20 },
  { name: "Amundsen-Scott", lon: -139.27, lat: -89.99, sigmaKm: 10 },
  { name: "Tokyo", lon: 139.6917, lat: 35.6895, cc: "JP", sigmaKm: 10 },
];

const WORDS = [
  "plomberie",
  "plombier",
  "plomb",
  "café",
  "cafetière",
  "Straße",
  "garden",
  "gardening",
  "gardener",
  "paint",
  "painter",
  "move",
  "moving",
  "help",
  "urgent",
  "Élan",
  "elan",
  "kitchen",
  "sink",
  "déménagement",
  "DÉMÉNAGER",
  "tutor",
  "math",
  "ŒUVRE",
  "zèbre",
  "x",
];

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)];
}

function gaussian(rnd: () => number): number {
  const u = Math.max(rnd(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

function wrap(lon: number): number {
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}

/** A point near a place: gaussian in km, kept on the sphere's valid ranges. */
export function near(rnd: () => number, place: Place): [number, number] {
  const dLat = (gaussian(rnd) * place.sigmaKm) / 111.2;
  const lat = Math.max(-90, Math.min(90, place.lat + dLat));
  const cos = Math.max(0.01, Math.cos((lat * Math.PI) / 180));
  const lon = wrap(place.lon + (gaussian(rnd) * place.sigmaKm) / (111.2 * cos));
  return [lon, lat];
}

function text(rnd: () => number, n: number): string {
  return Array.from({ length: n }, () => pick(rnd, WORDS)).join(rnd() < 0.5 ? " " : ", ");
}

function location(rnd: () => number): ExploreLocation {
  const r = rnd();
  const place = pick(rnd, PLACES);
  const coordinates: [number, number] = rnd() < 0.15
    ? [rnd() * 360 - 180, rnd() * 180 - 90]
    : near(rnd, place);
  const spelled = pick(rnd, [place.name, place.name.toUpperCase(), place.name.toLowerCase()]);
  const cc = place.cc && rnd() < 0.9 ? place.cc : undefined;
  if (r < 0.5) return { type: "city", name: spelled, coordinates, countryCode: cc };
  if (r < 0.75) {
    const radiusKm = pick(rnd, [1, 5, 25, 26, 60, 100, 101, 250, 499.5, 500]);
    return { type: "radius", name: spelled, coordinates, countryCode: cc, radiusKm };
  }
  if (r < 0.9) return { type: "country", name: cc ?? "Nowhere", coordinates, countryCode: cc };
  return { type: "world", name: "Anywhere", coordinates };
}

/** `n` tasks created a few ms apart (some in the same ms), a tenth of them completed. */
export function generateTasks(seed: number, n: number): ExploreTask[] {
  const rnd = random(seed);
  const start = Date.UTC(2030, 0, 1);
  let t = start;
  return Array.from({ length: n }, () => {
    t += rnd() < 0.3 ? 0 : Math.floor(rnd() * 5000);
    const id = uuid(rnd);
    const budget = rnd() < 0.25 ? 0 : Math.round(rnd() * 50000) / 100;
    return {
      id,
      orderKey: orderKeyOf(t, id),
      title: text(rnd, 1 + Math.floor(rnd() * 4)),
      description: text(rnd, Math.floor(rnd() * 12)) || "-",
      budget,
      currency: rnd() < 0.5 ? "EUR" : "USD",
      status: rnd() < 0.1 ? "completed" : "published",
      createdAt: new Date(t).toISOString(),
      deletedAt: null,
      location: location(rnd),
    };
  });
}

/** Random explore filters in the shapes users send, some of them empty-handed on purpose. */
export function generateFilters(seed: number): ExploreFilters {
  const rnd = random(seed);
  const filters: ExploreFilters = { search: [] };
  const place = pick(rnd, PLACES);
  if (rnd() < 0.55) {
    const [lon, lat] = rnd() < 0.8 ? near(rnd, place) : [rnd() * 360 - 180, rnd() * 180 - 90];
    filters.geo = { lon, lat, radiusKm: pick(rnd, [1, 3, 10, 50, 100, 250, 500, 37.5]) };
  }
  if (rnd() < 0.15) {
    filters.cityName = normalizeName(pick(rnd, [place.name, "Anywhere", "Nowhere"]));
  }
  if (rnd() < 0.15) {
    filters.regionName = normalizeName(pick(rnd, [place.name, "Anywhere", "Nowhere", "FR"]));
  }
  if (rnd() < 0.2) filters.countryCode = pick(rnd, ["FR", "DE", "FJ", "RU", "JP", "US"]);
  if (rnd() < 0.4) {
    const word = pick(rnd, WORDS);
    const cut = word.slice(0, 1 + Math.floor(rnd() * word.length));
    const query = rnd() < 0.3 ? `${cut} ${pick(rnd, WORDS).slice(0, 3)}` : cut;
    filters.search = queryWords(rnd() < 0.1 ? "zzz" : query);
  }
  if (rnd() < 0.3) filters.payment = rnd() < 0.5 ? "Paid" : "Pro-bono";
  return filters;
}

/** Writes a task's move from `before` to `after` the way the task store does, in one atomic. */
export async function writeTask(
  kv: Deno.Kv,
  before: ExploreTask | null,
  after: ExploreTask,
): Promise<void> {
  const id = (key: Deno.KvKey) => JSON.stringify(key);
  const oldEntries = new Map(
    (before ? exploreIndexEntries(before) : []).map((e) => [id(e.key), e]),
  );
  const newEntries = new Map(exploreIndexEntries(after).map((e) => [id(e.key), e]));
  const op = kv.atomic();
  for (const [k, e] of oldEntries) if (!newEntries.has(k)) op.delete(e.key);
  for (const [k, e] of newEntries) {
    const old = oldEntries.get(k);
    if (!old || JSON.stringify(old.value) !== JSON.stringify(e.value)) op.set(e.key, e.value);
  }
  const oldCounts = new Map((before ? exploreCounterKeys(before) : []).map((k) => [id(k), k]));
  const newCounts = new Map(exploreCounterKeys(after).map((k) => [id(k), k]));
  for (const [k, key] of oldCounts) if (!newCounts.has(k)) op.sum(key, (1n << 64n) - 1n);
  for (const [k, key] of newCounts) if (!oldCounts.has(k)) op.sum(key, 1n);
  const res = await op.commit();
  if (!res.ok) throw new Error("explore fixture write failed");
}

/** What the reference says a query returns, newest first. */
export function reference(tasks: ExploreTask[], filters: ExploreFilters): ExploreResult[] {
  return tasks
    .map((task) => ({ task, match: matchExplore(task, searchTerms(task), filters) }))
    .filter((x) => x.match !== null)
    .sort((a, b) => (a.task.orderKey < b.task.orderKey ? 1 : -1))
    .map(({ task, match }) => {
      const item = {
        id: task.id,
        title: task.title,
        budget: task.budget,
        currency: task.currency,
        status: task.status,
        createdAt: task.createdAt,
        location: task.location,
      };
      return match!.distanceKm === undefined
        ? { item }
        : { item, distanceKm: Math.round(match!.distanceKm * 10) / 10 };
    });
}

/** Every page of a query, concatenated; also checks that only the last page lacks a cursor. */
export async function allPages(
  kv: Deno.Kv,
  filters: ExploreFilters,
  limit: number,
  options: ExploreOptions = {},
): Promise<{ items: ExploreResult[]; pages: number; shortPages: number }> {
  const items: ExploreResult[] = [];
  let after: string | null = null;
  let pages = 0;
  let shortPages = 0;
  for (;;) {
    const page = await exploreTasks(kv, filters, after, limit, options);
    pages++;
    if (page.items.length > limit) throw new Error("page longer than its limit");
    items.push(...page.items);
    if (page.next === null) return { items, pages, shortPages };
    if (page.items.length < limit) shortPages++;
    if (after !== null && page.next >= after) throw new Error("cursor did not move forward");
    after = page.next;
    if (pages > 100_000) throw new Error("too many pages");
  }
}
