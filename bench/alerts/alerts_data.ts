/**
 * Alerts for the alerts bench, spread like the explore bench's tasks: alert `i` is drawn around
 * explore task `i`'s place and words (bench/datasets/explore_data.ts), a pure function of `i`; and a
 * bulk loader that stores them and files them as the service's index does (same anchors, same
 * pages), without the per-alert atomics that a load of 100,000 does not need.
 */
import { alertCriteria, AlertFilters, type AlertRecord } from "../../domain/alerts/alert.ts";
import { anchorsOf } from "../../domain/alerts/anchors.ts";
import {
  encodePage,
  entryBytes,
  type Page,
  PAGE_BYTES,
  pageCap,
  pageKey,
  type Place,
  placeId,
  placeOf,
  type Stamp,
  stampKey,
  type StoredAlert,
  storedAlert,
} from "../../kv/alerts/pages.ts";
import type { Subscription } from "../../kv/effects.ts";
import { alerts, webhooks } from "../../kv/keyspace.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { generateTask } from "../datasets/explore_data.ts";

/**
 * Shares of the alert kinds, by spread. "explore-like" (the rest, 1%: payment or minBudget only,
 * matching tasks anywhere): most alerts are what the example is, "near me, this kind of
 * job": a place, often with a word; a tenth are country-wide on a word, a few worldwide on a
 * word. "placed": every alert names a place, as a helper's alert usually does; the same shares
 * otherwise. The worldwide tenth of "explore-like" gives most of its matches: each of its alerts
 * matches a task anywhere whose words hold its word (30 jobs make the whole vocabulary).
 */
export const SPREADS = {
  "explore-like": [
    ["geo", 0.55],
    ["city", 0.20],
    ["region", 0.05],
    ["country", 0.10],
    ["search", 0.09],
  ],
  placed: [
    ["geo", 0.61],
    ["city", 0.22],
    ["region", 0.06],
    ["country", 0.11],
  ],
} as const satisfies Record<string, readonly (readonly [string, number])[]>;
export type Spread = keyof typeof SPREADS;

// The words of explore's title openings ("Looking for help with"): a job alert names the job.
const GENERIC = new Set([
  "help",
  "with",
  "need",
  "someone",
  "looking",
  "quick",
  "job:",
  "weekend",
  "help:",
  "urgent:",
  "volunteer",
  "needed",
  "paid",
  "gig:",
]);

function pick<T>(list: readonly T[], rnd: () => number): T {
  return list[Math.floor(rnd() * list.length)];
}

/** Alert `i` of `n`: its kind (by `spread`), place and words from explore bench task `i`. */
export function benchAlert(i: number, n: number, spread: Spread = "explore-like"): AlertRecord {
  const rnd = seededRandom(0xa1e7 + i * 2654435761);
  rnd();
  const task = generateTask(i, n, 7);
  const loc = task.location;
  const words = task.title.split(/\s+/).filter((w) =>
    w.length >= 4 && !GENERIC.has(w.toLowerCase())
  );
  let r = rnd();
  const kind: string = SPREADS[spread].find(([, share]) => (r -= share) < 0)?.[0] ?? "any";
  const f: Record<string, unknown> = {};
  const [lon, lat] = loc.coordinates;
  if (kind === "geo") {
    Object.assign(f, { latitude: lat, longitude: lon, radiusKm: pick([1, 2, 5, 10, 25], rnd) });
  }
  if (kind === "city") f.cityName = loc.name;
  if (kind === "region") f.regionName = loc.name;
  if (kind === "country") f.countryCode = loc.countryCode ?? "FR";
  const withWord = kind === "country" || kind === "search" || (kind !== "any" && rnd() < 0.6);
  if (withWord) f.search = pick(words, rnd) ?? "help";
  if (rnd() < 0.2) f.payment = "Paid";
  if (kind === "any" || rnd() < 0.1) f.minBudget = pick([20, 50, 100, 200], rnd);
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return {
    id: `a${i.toString(16).padStart(7, "0")}-0000-4000-8000-000000000000`,
    userId: ownerId(i % OWNERS),
    name: `alert ${i}`,
    filters: AlertFilters.parse(f),
    enabled: true,
    createdAt: at,
    updatedAt: at,
  };
}

/** Accounts owning the alerts: alert `i` is account `i % OWNERS`'s. */
const OWNERS = 20_000;
/**
 * One account in this many has an endpoint selecting `task.matched`, so its matches raise events.
 */
export const SUBSCRIBED_EVERY = 10;

function ownerId(k: number): string {
  return `00000000-0000-4000-b000-${k.toString(16).padStart(12, "0")}`;
}

/**
 * Stores alerts 0..n-1 (the records, which recording a match reads again) and files them in the
 * index, with a `task.matched` subscription for one owner in SUBSCRIBED_EVERY; answers the number
 * of places an alert is filed at (summed) and pages.
 */
export async function loadAlerts(
  kv: Deno.Kv,
  n: number,
  spread: Spread = "explore-like",
): Promise<{ entries: number; pages: number }> {
  const byPlace = new Map<string, { place: Place; list: { alert: StoredAlert; cap: number }[] }>();
  let op = kv.atomic();
  let mutations = 0;
  let entries = 0;
  const flush = async () => {
    if (mutations > 0 && !(await op.commit()).ok) throw new Error("bulk load failed");
    op = kv.atomic();
    mutations = 0;
  };
  for (let i = 0; i < n; i++) {
    const alert = benchAlert(i, n, spread);
    const indexed = storedAlert(alert);
    op.set(alerts.record(alert.userId, alert.id), alert);
    if (++mutations >= 500) await flush();
    const places = anchorsOf(alertCriteria(alert.filters)).map(placeOf);
    const cap = pageCap(places.length);
    for (const place of places) {
      const at = byPlace.get(placeId(place)) ?? { place, list: [] };
      at.list.push({ alert: indexed, cap });
      byPlace.set(placeId(place), at);
      entries++;
    }
  }
  const subscription: Subscription = { events: ["task.matched"], revision: "bench" };
  for (let k = 0; k < Math.min(n, OWNERS); k += SUBSCRIBED_EVERY) {
    op.set(webhooks.subscription(ownerId(k)), subscription);
    if (++mutations >= 500) await flush();
  }
  await flush();
  let pageCount = 0;
  for (const { place, list } of byPlace.values()) {
    // As filing one alert after another would pack them (kv/alerts/pages.ts: `add`).
    const pages: Page[] = [{ entries: [] }];
    let bytes = 64;
    for (const { alert, cap } of list) {
      const size = entryBytes(alert);
      let page = pages[pages.length - 1];
      if (bytes + size + 64 > Math.min(page.cap ?? PAGE_BYTES, cap)) {
        pages.push(page = { entries: [] });
        bytes = 64;
      }
      page.cap = Math.min(page.cap ?? PAGE_BYTES, cap);
      page.entries.push(alert);
      bytes += size;
    }
    op.set(stampKey(place), { seq: 1, pages: pages.map(() => 1) } satisfies Stamp);
    for (const [k, page] of pages.entries()) {
      op.set(pageKey(place, k), encodePage(page));
      pageCount++;
      if (++mutations >= 10) await flush();
    }
  }
  await flush();
  return { entries, pages: pageCount };
}
