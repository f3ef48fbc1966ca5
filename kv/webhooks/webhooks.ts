/**
 * Webhook endpoints in KV: records per account and the account's subscription entry, which every
 * change rewrites in the same atomic (so the 10-endpoint limit is exact across processes, and
 * writes that raise events see endpoint changes). A change takes the endpoint it writes as
 * domain's pure transition from what it reads inside its check-and-retry loop
 * (domain/webhooks/webhook_changes.ts), and what it raises as data or domain's rule: built by the
 * caller, never a callback into it.
 */
import type { WebhookRecord } from "../../domain/webhooks/webhook.ts";
import {
  addedWebhook,
  DELETE,
  removedWebhook,
  type WebhookTransition,
} from "../../domain/webhooks/webhook_changes.ts";
import { atomically } from "../commit.ts";
import type { Effects } from "../../domain/effects.ts";
import { addEffects, type DatedEffects, type Subscription } from "../effects.ts";
import { webhooks } from "../keyspace.ts";
import { hearsMatches, writeListener } from "./listeners.ts";

const CONFLICT = "The account's webhooks changed too often to complete; try again";

/** Every endpoint of an account, oldest first. */
export async function listWebhooks(kv: Deno.Kv, userId: string): Promise<WebhookRecord[]> {
  const hooks: WebhookRecord[] = [];
  for await (const entry of kv.list<WebhookRecord>({ prefix: webhooks.byUserPrefix(userId) })) {
    hooks.push(entry.value);
  }
  return hooks.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** One endpoint of an account, or null. */
export async function getWebhook(
  kv: Deno.Kv,
  userId: string,
  webhookId: string,
): Promise<WebhookRecord | null> {
  return (await kv.get<WebhookRecord>(webhooks.record(userId, webhookId))).value;
}

function subscriptionOf(hooks: readonly WebhookRecord[]): Subscription {
  const events = new Set(hooks.filter((h) => h.enabled).flatMap((h) => h.events));
  return { events: [...events].sort(), revision: crypto.randomUUID() };
}

/** A change of one endpoint: the next record, DELETE, or null to write nothing. */
export interface WebhookChange {
  userId: string;
  webhookId: string;
  now: number;
  /**
   * Domain's transition from the stored endpoint (null when absent) and the account's endpoints
   * (domain/webhooks/webhook_changes.ts), run again on a fresh read each round.
   */
  change: WebhookTransition;
  /**
   * What the change raises: its security entry known before the call, or domain's rule over the
   * endpoint before and after (null: absent), for a change decided by what the write reads.
   */
  effects?: Effects | ((before: WebhookRecord | null, after: WebhookRecord | null) => Effects);
}

/**
 * Applies a change to one endpoint and rewrites the subscription, under a check of the
 * subscription entry: every endpoint change of the account is serialized by it. A change that
 * makes the account start or stop hearing `task.matched` rewrites its listeners' shard too
 * (listeners.ts). Returns the
 * endpoint as written (or as it was, when deleted); null when nothing was written.
 */
export function changeWebhook(kv: Deno.Kv, request: WebhookChange): Promise<WebhookRecord | null> {
  const { userId, webhookId } = request;
  return atomically<WebhookRecord | null>(CONFLICT, async () => {
    const subscription = await kv.get<Subscription>(webhooks.subscription(userId));
    const all = await listWebhooks(kv, userId);
    const current = all.find((h) => h.id === webhookId) ?? null;
    const next = request.change(current, all);
    if (next === null) return { value: null };
    const rest = all.filter((h) => h.id !== webhookId);
    const op = kv.atomic().check(subscription);
    if (next === DELETE) {
      op.delete(webhooks.record(userId, webhookId));
    } else {
      if (!current) op.check({ key: webhooks.record(userId, webhookId), versionstamp: null });
      op.set(webhooks.record(userId, webhookId), next);
      rest.push(next);
    }
    const subscribed = subscriptionOf(rest);
    const hears = hearsMatches(subscribed.events);
    if (hearsMatches(subscription.value?.events) !== hears) {
      await writeListener(kv, op, { userId, hears });
    }
    op.set(webhooks.subscription(userId), subscribed);
    const after = next === DELETE ? null : next;
    if (request.effects) {
      const { effects } = request;
      const raised = typeof effects === "function" ? effects(current, after) : effects;
      await addEffects(kv, op, { ...raised, userId, now: request.now });
    }
    return { value: after ?? current, op };
  });
}

/** Stores a new endpoint unless the account has 10 already. */
export function createWebhook(
  kv: Deno.Kv,
  hook: WebhookRecord,
  effects: DatedEffects,
): Promise<WebhookRecord | null> {
  return changeWebhook(kv, {
    userId: hook.userId,
    webhookId: hook.id,
    now: effects.now,
    change: addedWebhook(hook),
    effects,
  });
}

/** Deletes every endpoint of an account (account deletion); their deliveries stop. */
export async function deleteAllWebhooks(kv: Deno.Kv, userId: string, now: number) {
  for (const hook of await listWebhooks(kv, userId)) {
    await changeWebhook(kv, {
      userId,
      webhookId: hook.id,
      now,
      change: removedWebhook(),
    });
  }
}
