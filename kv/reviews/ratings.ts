/**
 * Ratings: the sums kept by every reveal (kv/reviews/reveal.ts), read as `{average, count}`, and
 * the cache the single-task path reads its author's rating through, kept true across instances
 * by the marker every reveal rewrites (kv/polled_cache.ts).
 */
import { type Rating, toRating } from "../../domain/reviews/review.ts";
import { reviews } from "../keyspace.ts";
import { PolledCache } from "../polled_cache.ts";

/** The rating of `userId` as stored now. */
export async function readRating(kv: Deno.Kv, userId: string): Promise<Rating> {
  const [sum, count] = await kv.getMany<[Deno.KvU64, Deno.KvU64]>([
    reviews.ratingSum(userId),
    reviews.ratingCount(userId),
  ]);
  return toRating(Number(sum.value?.value ?? 0n), Number(count.value?.value ?? 0n));
}

export type RatingCache = PolledCache<Rating>;

export function newRatingCache(kv: Deno.Kv, now: () => number): RatingCache {
  return new PolledCache(kv, now, reviews.changed(), (userId) => readRating(kv, userId));
}
