/**
 * Data for the explore benchmark: task number i is a pure function of (seed, i, n), so the loader,
 * the brute-force scan and the Redis peer can each regenerate the same tasks without keeping
 * them, and the query lists are fixed for every size. Places and words are drawn from
 * explore_data_places.ts and explore_data_words.ts.
 */
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { orderKey } from "../../kv/order_key.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { location } from "./explore_data_places.ts";
import { pick, uuid } from "./explore_data_random.ts";
import { ACTIONS, JOBS, RARE_WORDS, SENTENCES } from "./explore_data_words.ts";

/**
 * Names the cached KV files, so that one of another version is rebuilt (the file name carries the
 * index layout too). Up to layout 6 it was the layout itself; 1_007: a point outside its city's or
 * box's country names no country, as the API requires of a created task.
 */
export const DATA_VERSION = 1_007;

/** The newest task is created at this instant; older ones one by one before it. */
const END_MS = Date.UTC(2026, 10, 1);
const SPAN_MS = 365 * 24 * 3600 * 1000;

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
