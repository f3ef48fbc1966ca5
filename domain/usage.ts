/**
 * Per-key usage figures (docs/contract.md section 14): requests counted by UTC hour and day, split by
 * outcome, and the series a range of them answers with. Pure arithmetic, no storage.
 */
import { z } from "zod";

export const OUTCOMES = ["ok", "clientError", "rateLimited", "serverError"] as const;
export type Outcome = typeof OUTCOMES[number];
export type UsageUnit = "hour" | "day";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
const UNIT_MS: Record<UsageUnit, number> = { hour: HOUR_MS, day: DAY_MS };

/** How long each unit's buckets are kept: hours for the last 7 days, days for the last 90. */
export const RETENTION_BUCKETS: Record<UsageUnit, number> = { hour: 7 * 24, day: 90 };

/** The outcome a response status counts as; anything below 400 is a success. */
export function outcomeOf(status: number): Outcome {
  if (status === 429) return "rateLimited";
  if (status >= 500) return "serverError";
  if (status >= 400) return "clientError";
  return "ok";
}

/** The start (epoch ms) of the UTC hour or day holding `at`. */
export function bucketStart(unit: UsageUnit, at: number): number {
  return Math.floor(at / UNIT_MS[unit]) * UNIT_MS[unit];
}

/** The oldest bucket start a unit still keeps at `now`. */
export function oldestKept(unit: UsageUnit, now: number): number {
  return bucketStart(unit, now) - (RETENTION_BUCKETS[unit] - 1) * UNIT_MS[unit];
}

export const UsageRange = z.enum(["24h", "7d", "90d"]);
export type UsageRange = z.infer<typeof UsageRange>;

/** Each range's bucket unit and number of buckets, the current (partial) one last. */
export const RANGES: Record<UsageRange, { unit: UsageUnit; buckets: number }> = {
  "24h": { unit: "hour", buckets: 24 },
  "7d": { unit: "hour", buckets: 7 * 24 },
  "90d": { unit: "day", buckets: 90 },
};

export const UsagePoint = z.object({
  start: z.string().meta({
    description: "The bucket's start, UTC",
    example: "2026-11-24T09:00:00.000Z",
  }),
  ok: z.number().int().meta({ description: "Answers below 400" }),
  clientError: z.number().int().meta({ description: "4xx answers other than 429" }),
  rateLimited: z.number().int().meta({ description: "429 answers" }),
  serverError: z.number().int().meta({ description: "5xx answers" }),
}).meta({ id: "ApiKeyUsagePoint" });
export type UsagePoint = z.infer<typeof UsagePoint>;

export const UsageSeries = z.object({
  range: UsageRange,
  bucket: z.enum(["hour", "day"]),
  series: z.array(UsagePoint).meta({
    description: "Every bucket of the range, oldest first, the current partial one last; " +
      "buckets without requests are zeros",
  }),
}).meta({ id: "ApiKeyUsage" });
export type UsageSeries = z.infer<typeof UsageSeries>;

/** The dense series of `range` ending at `now`, from counts by bucket start and outcome. */
export function toSeries(
  range: UsageRange,
  counts: ReadonlyMap<number, Partial<Record<Outcome, number>>>,
  now: number,
): UsageSeries {
  const { unit, buckets } = RANGES[range];
  const last = bucketStart(unit, now);
  const series: UsagePoint[] = [];
  for (let i = buckets - 1; i >= 0; i--) {
    const start = last - i * UNIT_MS[unit];
    const c = counts.get(start) ?? {};
    series.push({
      start: new Date(start).toISOString(),
      ok: c.ok ?? 0,
      clientError: c.clientError ?? 0,
      rateLimited: c.rateLimited ?? 0,
      serverError: c.serverError ?? 0,
    });
  }
  return { range, bucket: unit, series };
}

/** The first bucket start of `range` ending at `now`. */
export function rangeStart(range: UsageRange, now: number): number {
  const { unit, buckets } = RANGES[range];
  return bucketStart(unit, now) - (buckets - 1) * UNIT_MS[unit];
}
