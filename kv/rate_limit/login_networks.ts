/**
 * Client networks an account has logged in from lately: the email-wide failed-login ceiling
 * does not apply to them, so failures sent from elsewhere cannot lock the owner out.
 */
import { loginNetworks } from "../keyspace.ts";

/** How long a successful login vouches for its network. */
export const KNOWN_NETWORK_MS = 30 * 24 * 3_600_000;

/** True when the account logged in from `network` within `KNOWN_NETWORK_MS`. */
export async function isKnownLoginNetwork(
  kv: Deno.Kv,
  userId: string,
  network: string,
): Promise<boolean> {
  return (await kv.get(loginNetworks.record(userId, network))).versionstamp !== null;
}

/** Adds the network marker of a successful login to `op` (the session's own atomic). */
export function rememberLoginNetwork(
  op: Deno.AtomicOperation,
  userId: string,
  network: string,
  now: number,
): Deno.AtomicOperation {
  return op.set(loginNetworks.record(userId, network), now, { expireIn: KNOWN_NETWORK_MS });
}
