/**
 * Everyday tasks as a new user posts them, for measuring what one task costs in the store:
 * one-line titles, descriptions of 25 to 55 words, 40 cities, a third with a radius. Task `i` is a
 * pure function of `i`, like the explore bench's data.
 */
import { countryMismatch } from "../../domain/geo/country.ts";
import type { Location, TaskRecord } from "../../domain/tasks/task.ts";
import { orderKey } from "../../kv/order_key.ts";
import { CITIES as SEED_CITIES, TEMPLATES } from "../../scripts/seed_data.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";

const MORE_CITIES: { name: string; countryCode: string; coordinates: [number, number] }[] = [
  { name: "Stockholm", countryCode: "SE", coordinates: [18.0686, 59.3293] },
  { name: "Oslo", countryCode: "NO", coordinates: [10.7522, 59.9139] },
  { name: "København", countryCode: "DK", coordinates: [12.5683, 55.6761] },
  { name: "Helsinki", countryCode: "FI", coordinates: [24.9384, 60.1699] },
  { name: "Athína", countryCode: "GR", coordinates: [23.7275, 37.9838] },
  { name: "Budapest", countryCode: "HU", coordinates: [19.0402, 47.4979] },
  { name: "Porto", countryCode: "PT", coordinates: [-8.6291, 41.1579] },
  { name: "Valencia", countryCode: "ES", coordinates: [-0.3763, 39.4699] },
  { name: "Köln", countryCode: "DE", coordinates: [6.9603, 50.9375] },
  { name: "Toulouse", countryCode: "FR", coordinates: [1.4442, 43.6047] },
  { name: "Napoli", countryCode: "IT", coordinates: [14.2681, 40.8518] },
  { name: "Chicago", countryCode: "US", coordinates: [-87.6298, 41.8781] },
  { name: "Boston", countryCode: "US", coordinates: [-71.0589, 42.3601] },
  { name: "Vancouver", countryCode: "CA", coordinates: [-123.1207, 49.2827] },
];

/** The 40 cities tasks are posted in. */
export const EVERYDAY_CITIES = [
  ...SEED_CITIES.map((c) => ({
    name: c.name,
    countryCode: c.countryCode,
    coordinates: c.coordinates,
  })),
  ...MORE_CITIES,
];

// Sentences an everyday description adds to its template's, until it has its length.
const MORE = [
  "Please message me before you come so we can agree on a time that suits us both.",
  "The building has a code at the door, I will send it once the task is accepted.",
  "I can pay in cash or by bank transfer on the day, whichever you prefer.",
  "Weekends work best for me, but a weekday evening is possible too.",
  "There is parking in the street nearby and a bus stop two minutes away.",
  "Tools and materials are in the garage if you need anything extra.",
  "It should take about two hours for someone who has done this before.",
  "Coffee and snacks are on me, and the cat is friendly.",
  "If it goes well I will have more small jobs like this over the summer.",
  "Photos of the place are available on request before you apply.",
  "Ring the bell at the side entrance, the front one is broken.",
  "I work from home, so I will be around if you have any questions.",
];

function pick<T>(list: readonly T[], rnd: () => number): T {
  return list[Math.floor(rnd() * list.length)];
}

function wordCount(s: string): number {
  return s.split(/\s+/).filter((w) => w.length > 0).length;
}

/** Everyday task `i` of `n`, created in order over the last 30 days before `END_MS`. */
export function everydayTask(i: number, n: number): TaskRecord {
  const rnd = seededRandom(0x5eed + i * 2654435761);
  rnd();
  const template = pick(TEMPLATES, rnd);
  const city = pick(EVERYDAY_CITIES, rnd);
  const target = 25 + Math.floor(rnd() * 31);
  const sentences = [template.description];
  const extra = [...MORE];
  while (wordCount(sentences.join(" ")) < target && extra.length > 0) {
    sentences.push(extra.splice(Math.floor(rnd() * extra.length), 1)[0]);
  }
  const words = sentences.join(" ").split(/\s+/).slice(0, Math.max(target, 25));
  const [lon, lat] = city.coordinates;
  const around: [number, number] = [
    Math.round((lon + (rnd() - 0.5) * 0.2) * 1e5) / 1e5,
    Math.round((lat + (rnd() - 0.5) * 0.14) * 1e5) / 1e5,
  ];
  // A point that strays over a border (Roma's into the Vatican) would be refused by the API.
  const coordinates = countryMismatch(around, city.countryCode) ? city.coordinates : around;
  const location: Location = rnd() < 1 / 3
    ? {
      type: "radius",
      name: city.name,
      countryCode: city.countryCode,
      coordinates,
      radiusKm: 1 + Math.floor(rnd() * 30),
    }
    : { type: "city", name: city.name, countryCode: city.countryCode, coordinates };
  const [low, high] = template.budget;
  const budget = high === 0 ? 0 : low + Math.floor(rnd() * (high - low));
  const at = END_MS - Math.floor(((n - 1 - i) / n) * 30 * 86_400_000);
  const createdAt = new Date(at).toISOString();
  const id = `${i.toString(16).padStart(8, "0")}-0000-4000-8000-${
    Math.floor(rnd() * 2 ** 48).toString(16).padStart(12, "0")
  }`;
  return {
    id,
    userId: `00000000-0000-4000-a000-${(i % 2000).toString(16).padStart(12, "0")}`,
    title: template.title,
    description: words.join(" "),
    budget,
    currency: "EUR",
    location,
    requirement: template.requirement,
    dueDate: null,
    maxPeople: template.maxPeople ?? 1,
    images: [],
    status: "published",
    createdAt,
    updatedAt: createdAt,
    completedAt: null,
    deletedAt: null,
    orderKey: orderKey(at, id),
  };
}

const END_MS = Date.parse("2026-11-01T00:00:00Z");
