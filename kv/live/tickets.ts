/**
 * Stream tickets: a browser's `EventSource` cannot send a credential header, so a credential
 * trades itself for a ticket, good for one stream within 60 seconds and carrying the credential's
 * rights. Only the ticket's SHA-256 is stored; it is consumed in the stream's admission atomic
 * (stream_leases.ts), so two streams never open on one ticket.
 */
import { sha256Hex } from "../../domain/bytes.ts";
import { newTicketValue, TICKET_TTL_MS } from "../../domain/live/live_rules.ts";
import { live } from "../keyspace.ts";
import { commit } from "../commit.ts";
import type { StreamCredential } from "../../domain/live/stream_access.ts";

/** A ticket as stored. */
export interface TicketRecord {
  credential: StreamCredential;
  expiresAt: number;
}

/** Stores a new ticket for `credential` and answers its value and expiry. */
export async function issueTicket(
  kv: Deno.Kv,
  credential: StreamCredential,
  now: number,
): Promise<{ ticket: string; expiresAt: number }> {
  const ticket = newTicketValue();
  const expiresAt = now + TICKET_TTL_MS;
  const record: TicketRecord = { credential, expiresAt };
  // KV's expiry is only garbage collection: the ticket's own time is judged at use.
  const key = live.ticket(await sha256Hex(ticket));
  await commit(kv.atomic().set(key, record, { expireIn: TICKET_TTL_MS + 60_000 }));
  return { ticket, expiresAt };
}

/** The stored entry of ticket `value` (its value null when unknown or used). */
export async function readTicket(
  kv: Deno.Kv,
  value: string,
): Promise<Deno.KvEntryMaybe<TicketRecord>> {
  return await kv.get<TicketRecord>(live.ticket(await sha256Hex(value)));
}
