/**
 * Explore test data: seeded random tasks that crowd the index's edge cases (clusters, empty
 * areas, the antimeridian, the poles, radius circles of every class, accents and case), the
 * brute-force reference, and a pager that walks every page of a query.
 */
import { countryMismatch } from "../../domain/geo/country.ts";
import type { ExploreFilters, ExploreItem } from "../../domain/explore.ts";
import { matchExplore, normalizeName } from "../../domain/explore.ts";
import { type Location, searchTerms, type TaskRecord } from "../../domain/tasks/task.ts";
import { toTaskListItem } from "../../domain/tasks/task_view.ts";
import { queryWords } from "../../domain/validation/text.ts";
import { type ExploreQuery, exploreTasks } from "../../kv/explore/newest_page.ts";
import { explore } from "../../kv/keyspace.ts";
import { orderKey } from "../../kv/order_key.ts";
import { writeTaskTransition } from "../../kv/tasks/task_indexes.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";

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
  // Words explore leaves out of its index (kv/explore/index/indexed_words.ts): searches still
  // find them.
  "the",
  "there",
  "Für",
  "avec",
  "12",
  "2b",
  "de",
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

function location(rnd: () => number): Location {
  const r = rnd();
  const place = pick(rnd, PLACES);
  const coordinates: [number, number] = rnd() < 0.15
    ? [rnd() * 360 - 180, rnd() * 180 - 90]
    : near(rnd, place);
  const spelled = pick(rnd, [place.name, place.name.toUpperCase(), place.name.toLowerCase()]);
  // Only a point in the place's country may name it (the API refuses any other, contract §6).
  const cc = place.cc && rnd() < 0.9 && !countryMismatch(coordinates, place.cc)
    ? place.cc
    : undefined;
  if (r < 0.5) return { type: "city", name: spelled, coordinates, countryCode: cc };
  if (r < 0.75) {
    const radiusKm = pick(rnd, [1, 5, 25, 26, 60, 100, 101, 250, 499.5, 500]);
    return { type: "radius", name: spelled, coordinates, countryCode: cc, radiusKm };
  }
  if (r < 0.9) return { type: "country", name: cc ?? "Nowhere", coordinates, countryCode: cc };
  return { type: "world", name: "Anywhere", coordinates };
}

const USERS = Array.from(
  { length: 20 },
  (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
);

/** `n` tasks created a few ms apart (some in the same ms), a tenth of them completed. */
export function generateTasks(seed: number, n: number): TaskRecord[] {
  const rnd = seededRandom(seed);
  const start = Date.UTC(2030, 0, 1);
  let t = start;
  return Array.from({ length: n }, (_, i) => {
    t += rnd() < 0.3 ? 0 : Math.floor(rnd() * 5000);
    const id = uuid(rnd);
    const budget = rnd() < 0.25 ? 0 : Math.round(rnd() * 50000) / 100;
    const at = new Date(t).toISOString();
    const completed = rnd() < 0.1;
    return {
      id,
      userId: pick(rnd, USERS),
      orderKey: orderKey(t, id),
      title: text(rnd, 1 + Math.floor(rnd() * 4)),
      description: text(rnd, Math.floor(rnd() * 12)) || "-",
      budget,
      currency: rnd() < 0.5 ? "EUR" : "USD",
      location: location(rnd),
      requirement: "None",
      dueDate: null,
      // Some tasks full, some with spots left, for hasSpots.
      maxPeople: 1 + (i % 3),
      acceptedCount: i % 4 === 0 ? 0 : Math.min(1 + (i % 3), i % 5),
      images: [],
      status: completed ? "completed" : "published",
      createdAt: at,
      updatedAt: at,
      completedAt: completed ? at : null,
      deletedAt: null,
    };
  });
}

/** Random explore filters in the shapes users send, some of them empty-handed on purpose. */
export function generateFilters(seed: number): ExploreFilters {
  const rnd = seededRandom(seed);
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
  if (rnd() < 0.2) filters.hasSpots = true;
  return filters;
}

/** Writes a task's move from `before` to `after` through the task store's own transition. */
export async function writeTask(
  kv: Deno.Kv,
  before: TaskRecord | null,
  after: TaskRecord,
): Promise<void> {
  const op = kv.atomic();
  writeTaskTransition(op, before, after);
  const res = await op.commit();
  if (!res.ok) throw new Error("explore fixture write failed");
}

/** What the reference says a query returns, newest first. */
export function reference(tasks: TaskRecord[], filters: ExploreFilters): ExploreItem[] {
  return tasks
    .map((task) => ({ task, match: matchExplore(task, searchTerms(task), filters) }))
    .filter((x) => x.match !== null)
    .sort((a, b) => (a.task.orderKey < b.task.orderKey ? 1 : -1))
    .map(({ task, match }) => {
      const item = { ...toTaskListItem(task), location: task.location };
      return match!.distanceKm === undefined
        ? item
        : { ...item, distanceKm: Math.round(match!.distanceKm * 10) / 10 };
    });
}

/** Every page of a query, concatenated; also checks that only the last page lacks a cursor. */
export async function allPages(
  kv: Deno.Kv,
  query: Omit<ExploreQuery, "after">,
): Promise<{ items: ExploreItem[]; pages: number; shortPages: number }> {
  const { limit } = query;
  const items: ExploreItem[] = [];
  let after: string | null = null;
  let pages = 0;
  let shortPages = 0;
  for (;;) {
    const page = await exploreTasks(kv, { ...query, after });
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

/**
 * A store handle through which every `list` is also shown to `seen`, with the first key of its
 * range (its prefix, or its start): what a test reads to count the lists a page makes.
 */
export function watchingLists(
  kv: Deno.Kv,
  seen: (first: Deno.KvKey | undefined) => void,
): Deno.Kv {
  return new Proxy(kv, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      if (name !== "list") return original.bind(target);
      return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
        seen("prefix" in selector ? selector.prefix : selector.start);
        return (original as Deno.Kv["list"]).call(target, selector, options);
      };
    },
  });
}

/** A store handle that counts the point lists (key ranges of the point entries) read through it. */
export function countingPointLists(kv: Deno.Kv): { kv: Deno.Kv; lists: () => number } {
  const pointsRoot = explore.byPointRange("").start[0];
  let lists = 0;
  const counted = watchingLists(kv, (first) => {
    if (first?.[0] === pointsRoot) lists++;
  });
  return { kv: counted, lists: () => lists };
}
