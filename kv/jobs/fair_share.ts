/**
 * The shares of a runner's handler slots: what one account, one webhook endpoint, and retries
 * together may hold at once, so that one account's slow endpoints (an attempt holds its slot up to
 * the webhook timeout) never leave another account's jobs waiting for a slot.
 */
import type { JobPayload } from "./types.ts";

/** Handlers running at once per runner. */
export const MAX_RUNNING = 32;

/** What one lane may hold of a runner's slots at once. */
export interface Shares {
  account: number;
  endpoint: number;
  retries: number;
}

/** At most this many of the slots per account, per endpoint, and for all retries together. */
export const SHARES: Shares = {
  account: 4,
  endpoint: 2,
  /** Attempts after a delivery's first: first attempts and other jobs keep the other half. */
  retries: MAX_RUNNING / 2,
};

/** Whom a job's run is charged to. */
export interface Lanes {
  account: string | null;
  endpoint: string | null;
  retry: boolean;
}

/** The lanes of a job: its account and endpoint when it has them, and whether it is a retry. */
export function lanesOf(payload: JobPayload): Lanes {
  switch (payload.kind) {
    case "webhook_delivery":
      return { account: payload.userId, endpoint: payload.webhookId, retry: payload.attempt > 1 };
    case "webhook_event":
    case "purge_user":
    case "api_key_notice":
      return { account: payload.userId, endpoint: null, retry: false };
    default:
      // Jobs of the service (matching, declines, review windows): no account holds them.
      return { account: null, endpoint: null, retry: false };
  }
}

/** The runs under way, by lane: whether one more may start. */
export class SlotLedger {
  readonly #accounts = new Map<string, number>();
  readonly #endpoints = new Map<string, number>();
  #retries = 0;

  /** `shares` other than SHARES only for the fairness bench's comparison (no shares). */
  constructor(private readonly shares: Shares = SHARES) {}

  /** True when a job of `lanes` stays within every share. */
  admits(lanes: Lanes): boolean {
    if (lanes.account !== null && (this.#accounts.get(lanes.account) ?? 0) >= this.shares.account) {
      return false;
    }
    if (
      lanes.endpoint !== null && (this.#endpoints.get(lanes.endpoint) ?? 0) >= this.shares.endpoint
    ) {
      return false;
    }
    return !lanes.retry || this.#retries < this.shares.retries;
  }

  take(lanes: Lanes) {
    this.#move(lanes, 1);
  }

  give(lanes: Lanes) {
    this.#move(lanes, -1);
  }

  #move(lanes: Lanes, by: 1 | -1) {
    if (lanes.account !== null) bump(this.#accounts, lanes.account, by);
    if (lanes.endpoint !== null) bump(this.#endpoints, lanes.endpoint, by);
    if (lanes.retry) this.#retries += by;
  }
}

function bump(counts: Map<string, number>, key: string, by: number) {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
