/**
 * The queue's webhook handlers: fan-out of an event, and one attempt of a delivery (check the
 * target again, sign, post, record the outcome with the next attempt's message, then keep the
 * endpoint's failure run: 5 days of failures in a row disable it).
 */
import { type DeliveryAttempt, noAnswer } from "../domain/delivery.ts";
import { SERVICE_ORIGIN } from "../domain/security_log.ts";
import { signatureHeader, signingSecrets, type WebhookRecord } from "../domain/webhook.ts";
import { postWebhook } from "../domain/webhook_post.ts";
import { checkTarget } from "../domain/webhook_target.ts";
import type { QueueContext, QueueMessage } from "./queue.ts";
import { fanOut, getDeliveryByEvent, recordAttempt } from "./webhook_deliveries.ts";
import { changeWebhook, getWebhook } from "./webhooks.ts";

type DeliveryMessage = Extract<QueueMessage, { kind: "webhook_delivery" }>;

/** Queue handler of `webhook_event`. */
export async function fanOutEvent(
  ctx: QueueContext,
  message: Extract<QueueMessage, { kind: "webhook_event" }>,
) {
  await fanOut(ctx.kv, message, ctx.now());
}

/** One attempt to the endpoint (null: deleted meanwhile); never throws for a network failure. */
async function attempt(
  ctx: QueueContext,
  sending: {
    hook: WebhookRecord | null;
    delivery: { eventId: string; eventType: string; body: string };
    number: number;
  },
): Promise<DeliveryAttempt> {
  const { hook, delivery, number } = sending;
  const now = ctx.now();
  const at = new Date(now).toISOString();
  const failed = (category: Parameters<typeof noAnswer>[0]): DeliveryAttempt => ({
    attempt: number,
    at,
    durationMs: 0,
    ...noAnswer(category),
  });
  if (!hook) return failed("endpoint_deleted");
  if (!hook.enabled && delivery.eventType !== "webhook.test") return failed("endpoint_disabled");
  // Checked again at each attempt, and the connection goes to the addresses checked here.
  const target = await checkTarget(hook.url, ctx.webhooks);
  if (target instanceof Error) return failed("target_refused");
  const result = await postWebhook({
    target,
    headers: {
      "webhook-id": delivery.eventId,
      "webhook-timestamp": String(Math.floor(now / 1000)),
      "webhook-signature": signatureHeader(signingSecrets(hook, now), {
        id: delivery.eventId,
        at: new Date(now),
        body: delivery.body,
      }),
    },
    body: delivery.body,
    timeoutMs: ctx.webhooks.timeoutMs,
    caCerts: ctx.webhooks.caCerts,
  });
  return { attempt: number, at, ...result };
}

/** Queue handler of `webhook_delivery`: one attempt, unless it was made already. */
export async function deliver(ctx: QueueContext, message: DeliveryMessage) {
  const { kv } = ctx;
  const entry = await getDeliveryByEvent(kv, message.webhookId, message.eventUlid);
  if (!entry.value || entry.value.attemptCount >= message.attempt) return;
  const hook = await getWebhook(kv, message.userId, message.webhookId);
  const outcome = await attempt(ctx, { hook, delivery: entry.value, number: message.attempt });
  const recorded = await recordAttempt(kv, { ...message, policy: ctx.webhooks }, outcome);
  if (recorded && hook) await trackFailures(ctx, { hook, status: recorded.status });
}

/**
 * Keeps the endpoint's run of failures: a success ends it, a failure starts it or, once it has
 * lasted `disableAfterMs`, disables the endpoint with the reason (and a security log entry).
 */
async function trackFailures(
  ctx: QueueContext,
  outcome: { hook: WebhookRecord; status: "pending" | "succeeded" | "failed" },
) {
  const { status } = outcome;
  const { id: webhookId, userId } = outcome.hook;
  const now = ctx.now();
  const at = new Date(now).toISOString();
  let disabled = false;
  await changeWebhook(ctx.kv, {
    userId,
    webhookId,
    now,
    change: (hook) => {
      disabled = false;
      if (!hook) return null;
      if (status === "succeeded") return hook.failingSince ? { ...hook, failingSince: null } : null;
      if (!hook.failingSince) return { ...hook, failingSince: at };
      if (!hook.enabled || now - Date.parse(hook.failingSince) < ctx.webhooks.disableAfterMs) {
        return null;
      }
      disabled = true;
      return {
        ...hook,
        enabled: false,
        disabledReason: `Disabled on ${at}: every delivery failed since ${hook.failingSince}`,
        updatedAt: at,
      };
    },
    effects: () =>
      disabled ? { security: { type: "webhook.disabled", origin: SERVICE_ORIGIN, webhookId } } : {},
  });
}
