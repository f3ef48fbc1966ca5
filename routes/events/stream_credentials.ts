/**
 * What a stream acts as: the request's own credential (its key value's digest, so that a change
 * to the key can be judged again later), or the one a ticket carries, judged as it is now.
 */
import type { Context } from "hono";
import { keyDigest } from "../../domain/api_key.ts";
import { AppError } from "../../domain/errors.ts";
import { isTicketShaped } from "../../domain/live/live_rules.ts";
import type { StreamCredential } from "../../domain/live/stream_access.ts";
import { readTicket, type TicketRecord } from "../../kv/live/tickets.ts";
import { principalOf } from "../http/authenticate.ts";
import { readCredential } from "../http/credentials.ts";
import type { AppEnv } from "../router/env.ts";

const ticketInvalid = () =>
  new AppError("TICKET_INVALID", "The stream ticket is unknown, used or expired; get a new one");

/** The credential of the request itself (any credential the middleware accepted). */
export async function requestCredential(c: Context<AppEnv>): Promise<StreamCredential> {
  const principal = principalOf(c);
  if (principal.via === "session") {
    return { via: "session", userId: principal.userId, sessionId: principal.sessionId! };
  }
  const sent = readCredential(c.req.raw.headers);
  if (sent?.kind !== "api_key") throw new Error("an API key principal without its key");
  return {
    via: "api_key",
    userId: principal.userId,
    keyId: principal.keyId!,
    digest: await keyDigest(sent.value),
    scopes: [...principal.scopes],
    clientIp: c.get("clientIp"),
  };
}

/** The ticket's entry when it is good now (it is consumed with the stream's admission). */
export async function ticketEntry(
  kv: Deno.Kv,
  value: string,
  now: number,
): Promise<Deno.KvEntry<TicketRecord>> {
  if (!isTicketShaped(value)) throw ticketInvalid();
  const entry = await readTicket(kv, value);
  if (!entry.value || entry.value.expiresAt <= now) throw ticketInvalid();
  return entry as Deno.KvEntry<TicketRecord>;
}
