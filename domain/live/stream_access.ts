/**
 * What a stream acts as, and whether it still may: the credential that opened it (directly or
 * through a ticket) is judged again whenever it changes, and a stream whose credential was
 * revoked, has expired or was narrowed ends (the client reconnects with what it holds now).
 */
import { addressAllowed } from "../ip.ts";
import type { Scope } from "../auth.ts";
import { isLive, type KeyMatch } from "../api_key.ts";
import type { Grant } from "../webhooks/event_access.ts";

/** The credential a stream acts for, as a ticket also carries it. */
export type StreamCredential =
  | {
    via: "api_key";
    userId: string;
    keyId: string;
    /** SHA-256 of the value presented: which of the key's values it is. */
    digest: string;
    scopes: Scope[];
    clientIp: string;
  }
  | { via: "session"; userId: string; sessionId: string };

/** The rights a stream's events are filtered by: a webhook created by the same credential's. */
export function streamGrant(credential: StreamCredential): Grant {
  return credential.via === "session"
    ? { via: "session" }
    : { via: "api_key", scopes: credential.scopes };
}

/**
 * True while the key value still lets the stream go on: live at `now`, the client's address
 * still allowed, and no scope taken away or added (a changed key ends the stream, whose client
 * reconnects under the key as it is).
 */
export function keyAllows(
  match: KeyMatch | null,
  credential: Extract<StreamCredential, { via: "api_key" }>,
  now: number,
): boolean {
  if (!match || !isLive(match, now)) return false;
  const { ipWhitelist, scopes } = match.key;
  if (ipWhitelist.length > 0 && !addressAllowed(credential.clientIp, ipWhitelist)) return false;
  return scopes.length === credential.scopes.length &&
    scopes.every((scope) => credential.scopes.includes(scope));
}

/** When the key value stops working by the clock alone (its expiry, or its grace's end). */
export function keyLiveUntil(match: KeyMatch): number {
  const expires = Date.parse(match.key.expiresAt);
  if (!match.previous) return expires;
  return Math.min(expires, Date.parse(match.key.previousExpiresAt ?? match.key.expiresAt));
}
