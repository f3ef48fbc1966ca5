/**
 * Who an application's conversation is between, and its task: facts that never change once the
 * application exists, so an instance keeps them in memory and a conversation's request reads its
 * records in one round trip instead of first reading the application to learn its keys.
 */
import type { ApplicationRecord } from "../../domain/application.ts";
import type { Parties } from "../../domain/conversations/conversation.ts";
import { notFound } from "../../domain/errors.ts";
import { applications } from "../keyspace.ts";

/** An application's parties and its task. */
export interface Conversing extends Parties {
  taskId: string;
}

// Bounded: emptied when full, as a refill costs one read per conversation.
const KEPT = 10_000;
const known = new Map<string, Conversing>();

function remember(app: ApplicationRecord): Conversing {
  const parties = { creatorId: app.taskOwnerId, applicantId: app.applicantId, taskId: app.taskId };
  if (known.size >= KEPT) known.clear();
  known.set(app.id, parties);
  return parties;
}

/** The parties of a known application; null when this instance has not seen it yet. */
export function knownParties(applicationId: string): Conversing | null {
  return known.get(applicationId) ?? null;
}

/** Learns an application's parties from its record as read; 404 for an unknown application. */
export function partiesFrom(app: ApplicationRecord | null): Conversing {
  if (!app) throw notFound("Conversation");
  return known.get(app.id) ?? remember(app);
}

/** The parties of `applicationId`: from memory, else by reading its record. */
export async function partiesOf(kv: Deno.Kv, applicationId: string): Promise<Conversing> {
  const kept = knownParties(applicationId);
  if (kept) return kept;
  return partiesFrom((await kv.get<ApplicationRecord>(applications.record(applicationId))).value);
}
