/**
 * The rules of live event streams (docs/contract.md section 19, docs/live-events.md): how long
 * the log keeps events, tickets live, streams last and beat, and what one stream may buffer.
 */

/** Events stay resumable this long after they are sequenced. */
export const LOG_RETENTION_MS = 24 * 3600_000;
/** A raised event not yet sequenced (no stream open) is kept as long as the log keeps events. */
export const PENDING_RETENTION_MS = LOG_RETENTION_MS;
/** A stream ticket is good for one stream opened within this time. */
export const TICKET_TTL_MS = 60_000;
/** Open streams an account may hold at once, across every worker and instance. */
export const MAX_STREAMS = 5;
/** A stream ends after this long; the client reconnects with its last event id. */
export const STREAM_MAX_MS = 3600_000;
/** A comment line at least this often keeps proxies and clients from timing the stream out. */
export const HEARTBEAT_MS = 15_000;
/**
 * A stream silent for HEARTBEAT_MS less this sends its comment: room for the hub's once-a-second
 * look and a late timer on a loaded machine, so the client never waits HEARTBEAT_MS.
 */
export const HEARTBEAT_SLACK_MS = 5_000;
/** A stream's lease runs out this long after its last renewal (a dead process's streams free). */
export const STREAM_LEASE_MS = 45_000;
/** Leases are renewed this often, three times within a lease. */
export const LEASE_RENEW_MS = 15_000;
/**
 * Where the store's watch is missing, fails or misses other processes: one poll of the signals
 * this often. Delivery takes at most this, then one poll's and one delivery's work: well within
 * DELIVERY_BOUND_MS.
 */
export const POLL_INTERVAL_MS = 250;
/** An event reaches every open stream of its account within this of its commit. */
export const DELIVERY_BOUND_MS = 1_000;
/**
 * Bytes a stream may hold unsent: past this the client is not reading, and the stream is
 * ended (it resumes by Last-Event-ID); one event's frame always fits.
 */
export const STREAM_BUFFER_BYTES = 1024 * 1024;
/** What the client is told to wait before reconnecting (the SSE `retry` field). */
export const RECONNECT_MS = 1000;
/** Stream tickets: `sst_` and 32 random bytes as hex. */
export const TICKET_PREFIX = "sst_";
const TICKET_PATTERN = /^sst_[0-9a-f]{64}$/;

/** A fresh ticket value. */
export function newTicketValue(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return TICKET_PREFIX + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** True for a value shaped as a ticket (anything else is refused without a read). */
export function isTicketShaped(value: string): boolean {
  return TICKET_PATTERN.test(value);
}

/** An event id (`evt_<ulid>`) the log may know, or null for anything else. */
export function resumeUlid(lastEventId: string): string | null {
  return /^evt_[0-9A-HJKMNP-TV-Z]{26}$/.test(lastEventId) ? lastEventId.slice(4) : null;
}
