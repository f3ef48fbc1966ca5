/**
 * When deliveries are retried and when an endpoint gives up: the Standard Webhooks schedule by
 * default, settable (WEBHOOK_RETRY_SCHEDULE) so tests and staging need not wait hours.
 */

/** The retry delays after the first attempt, as the Standard Webhooks specification suggests. */
export const DEFAULT_RETRY_SCHEDULE = "5s,5m,30m,2h,5h,10h,10h";
/** An endpoint whose deliveries have failed this long in a row is disabled. */
export const DEFAULT_DISABLE_AFTER = "5d";
export const DEFAULT_TIMEOUT = "15s";

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `250ms`, `5s`, `30m`, `2h`, `5d` in milliseconds, or an Error saying what was expected. */
export function parseDuration(text: string): number | Error {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return new Error(`"${text}" is not a duration such as 250ms, 5s, 30m, 2h or 5d`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2]]);
}

/** A comma-separated list of durations. */
export function parseSchedule(text: string): number[] | Error {
  const delays: number[] = [];
  for (const part of text.split(",")) {
    const ms = parseDuration(part);
    if (ms instanceof Error) return ms;
    delays.push(ms);
  }
  return delays;
}

/** How deliveries behave; built from settings, injectable in tests. */
export interface DeliveryPolicy {
  allowPrivate: boolean;
  /** Delay before attempt n + 2 after attempt n + 1 failed; past its end a delivery fails. */
  retrySchedule: number[];
  timeoutMs: number;
  disableAfterMs: number;
  /**
   * `task.matched` deliveries an account may start per sliding minute; past it, the rest wait
   * (docs/alerts.md, "What one task can make an account send").
   */
  matchedPerMinute: number;
  resolve?: (host: string) => Promise<string[]>;
  /** Extra trusted root certificates (PEM), for a private CA in development and tests. */
  caCerts?: string[];
}

/** The delay before the attempt after `attempt` (from 1), or null when none follows. */
export function retryDelay(policy: DeliveryPolicy, attempt: number): number | null {
  return policy.retrySchedule[attempt - 1] ?? null;
}
