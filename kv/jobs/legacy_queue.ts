/**
 * Stores written by the previous version, which used KV queues: their pending messages become
 * jobs. Where the queue API exists (a local file), each process listens to the old queue and turns
 * every message into the job it stood for, for 31 days after this version first opened the store
 * (the previous version's longest delay was 30 days); then never again. The only queue call left.
 */
import { eventUlid, type WebhookEvent } from "../../domain/webhooks/event.ts";
import { commit } from "../commit.ts";
import { queueEvent } from "../effects.ts";
import { meta } from "../keyspace.ts";
import { pendingPurges } from "../users/users.ts";
import { addJob } from "./schedule.ts";
import type { JobPayload } from "./types.ts";

const DRAIN_FOR_MS = 31 * 86_400_000;
/** Purge jobs written per atomic, within the mutation limit. */
const PURGES_PER_ATOMIC = 200;

type Listen = (handler: (message: unknown) => Promise<void>) => Promise<void>;

const isString = (v: unknown): v is string => typeof v === "string";

/** The job a previous version's message stood for, added to `op`; false for an unknown one. */
export function legacyJob(op: Deno.AtomicOperation, value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const m = value as Record<string, unknown>;
  if (m.kind === "webhook_event" && isString(m.userId) && typeof m.event === "object") {
    const event = m.event as WebhookEvent;
    if (!isString(event?.id) || eventUlid(event.id).length !== 26) return false;
    queueEvent(op, m.userId, event);
    return true;
  }
  const known = ["purge_user", "webhook_delivery", "api_key_notice", "task_declines"];
  if (!known.includes(m.kind as string)) return false;
  const at = m.kind === "api_key_notice" && typeof m.dueAt === "number" ? m.dueAt : 0;
  addJob(op, m as JobPayload, at);
  return true;
}

/**
 * Listens to the old queue until the store closes, when the queue API exists and the drain
 * window is open; resolves at once otherwise, or with the reason when the store refuses to listen
 * (a KV Connect store may have the method but no queue). The first time, it also writes a purge job for each
 * purge marker (the previous version's only trace of a purge whose message was lost).
 */
export async function drainLegacyQueue(kv: Deno.Kv, now: () => number): Promise<string | void> {
  const listen = (kv as unknown as { listenQueue?: Listen }).listenQueue;
  if (typeof listen !== "function") return;
  const marker = await kv.get<number>(meta.legacyQueueDrain());
  let since = marker.value;
  if (since === null) {
    since = now();
    const purges = [...await pendingPurges(kv)];
    const first = kv.atomic().check(marker).set(meta.legacyQueueDrain(), since);
    for (const userId of purges.splice(0, PURGES_PER_ATOMIC)) {
      addJob(first, { kind: "purge_user", userId });
    }
    // Failed: another process opened the drain at the same time, and wrote the purge jobs.
    if (!(await commit(first)).ok) purges.length = 0;
    while (purges.length) {
      const op = kv.atomic();
      for (const userId of purges.splice(0, PURGES_PER_ATOMIC)) {
        addJob(op, { kind: "purge_user", userId });
      }
      await commit(op);
    }
  }
  if (now() - since > DRAIN_FOR_MS) return;
  try {
    await listen.call(kv, async (message) => {
      const op = kv.atomic();
      if (legacyJob(op, message)) await commit(op);
    });
  } catch (error) {
    return (error as Error).message;
  }
}
