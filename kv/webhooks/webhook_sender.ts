/**
 * The webhook jobs: fan-out of an event, one delivery per endpoint, and one attempt of a delivery
 * (check the target again, sign, post, record the outcome with the next attempt's job, then keep
 * the endpoint's failure run: 5 days of failures in a row disable it).
 */
import {
  type DeliveryAttempt,
  type DeliveryStatus,
  noAnswer,
  skipped,
} from "../../domain/webhooks/delivery.ts";
import { eventUlid, selects } from "../../domain/webhooks/event.ts";
import { SERVICE_ORIGIN } from "../../domain/security_log.ts";
import {
  disablingEffects,
  signatureHeader,
  signingSecrets,
  type WebhookRecord,
} from "../../domain/webhooks/webhook.ts";
import { trackedFailures } from "../../domain/webhooks/webhook_changes.ts";
import { postWebhook } from "../../io/webhooks/webhook_post.ts";
import { checkTarget } from "../../domain/webhooks/webhook_target.ts";
import { resolveHost } from "../../io/webhooks/resolve_host.ts";
import type { JobContext, JobOutcome, JobPayload } from "../jobs/types.ts";
import { takeMatchedDelivery } from "./matched_budget.ts";
import { readEventBody } from "./webhook_event_bodies.ts";
import { grantAllows, whyNotHeard } from "./webhook_grants.ts";
import { getDeliveryByEvent, recordAttempt, startDelivery } from "./webhook_deliveries.ts";
import { changeWebhook, getWebhook, listWebhooks } from "./webhooks.ts";

type DeliveryJob = Extract<JobPayload, { kind: "webhook_delivery" }>;

/**
 * Job handler of `webhook_event`: one delivery, with its own job, per enabled endpoint of the
 * account that selects the event. Each endpoint's start is its own atomic and its failure stops
 * no other; the job runs again for those that failed (a delivery that exists is not started
 * twice).
 */
export async function fanOutEvent(
  ctx: JobContext,
  job: Extract<JobPayload, { kind: "webhook_event" }>,
): Promise<JobOutcome> {
  const event = { id: job.eventId, type: job.eventType };
  const errors: unknown[] = [];
  for (const hook of await listWebhooks(ctx.kv, job.userId)) {
    if (!hook.enabled || !selects(hook.events, event.type)) continue;
    try {
      // The grantor is judged again at each event: a key's scopes may have shrunk since.
      if (!await grantAllows(ctx.kv, { hook, type: event.type, now: ctx.now() })) continue;
      if (event.type === "task.matched") {
        // Started already (a run again): its budget was taken then.
        if ((await getDeliveryByEvent(ctx.kv, hook.id, eventUlid(event.id))).value) continue;
        const budget = await takeMatchedDelivery(ctx.kv, {
          userId: job.userId,
          perMinute: ctx.webhooks.matchedPerMinute,
          now: ctx.now(),
        });
        // The endpoints left wait for the window: this job runs again then.
        if (!budget.allowed) return { again: { at: budget.retryAt } };
      }
      await startDelivery(ctx.kv, { hook, event, now: ctx.now(), unstored: job.unstored });
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length) throw new AggregateError(errors, `${errors.length} endpoint(s) failed`);
}

/** One attempt to the endpoint (null: deleted meanwhile); never throws for a network failure. */
async function attempt(
  ctx: JobContext,
  sending: {
    hook: WebhookRecord | null;
    delivery: { eventId: string; eventType: string; body: string | null };
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
  // The endpoint as it is now, not as it was at the fan-out: its URL may have been re-aimed by
  // a caller who may not read what was stored or pending for it.
  const skip = await whyNotHeard(ctx.kv, { hook, type: delivery.eventType, now });
  if (skip) return failed(skip);
  const { body } = delivery;
  if (body === null) return failed("event_expired");
  // Checked again at each attempt, and the connection goes to the addresses checked here.
  const target = await checkTarget(hook.url, {
    allowPrivate: ctx.webhooks.allowPrivate,
    resolve: ctx.webhooks.resolve ?? resolveHost,
  });
  if (target instanceof Error) return failed("target_refused");
  const result = await postWebhook({
    target,
    headers: {
      "webhook-id": delivery.eventId,
      "webhook-timestamp": String(Math.floor(now / 1000)),
      "webhook-signature": signatureHeader(signingSecrets(hook, now), {
        id: delivery.eventId,
        at: new Date(now),
        body,
      }),
    },
    body,
    timeoutMs: ctx.webhooks.timeoutMs,
    caCerts: ctx.webhooks.caCerts,
  });
  return { attempt: number, at, ...result };
}

/** Job handler of `webhook_delivery`: one attempt, unless it was made already. */
export async function deliver(ctx: JobContext, message: DeliveryJob) {
  const { kv } = ctx;
  const entry = await getDeliveryByEvent(kv, message.webhookId, message.eventUlid);
  if (!entry.value || entry.value.attemptCount >= message.attempt) return;
  const hook = await getWebhook(kv, message.userId, message.webhookId);
  const d = entry.value;
  const body = d.body ?? await readEventBody(kv, eventUlid(d.eventId));
  const outcome = await attempt(ctx, {
    hook,
    delivery: { eventId: d.eventId, eventType: d.eventType, body },
    number: message.attempt,
  });
  // A skip is the account's to know of: the endpoint was changed so that it may not hear this.
  const security = skipped(outcome) && hook
    ? {
      type: "webhook.delivery_skipped" as const,
      origin: SERVICE_ORIGIN,
      webhookId: hook.id,
      reason: outcome.category!,
      ...(hook.grantedBy?.via === "api_key" ? { keyId: hook.grantedBy.keyId } : {}),
    }
    : undefined;
  const recorded = await recordAttempt(kv, { ...message, policy: ctx.webhooks, security }, outcome);
  if (!recorded || !hook) return;
  if (recorded.status !== "skipped") {
    await trackFailures(ctx, { hook, status: recorded.status });
  }
}

/**
 * Keeps the endpoint's run of failures: a success ends it, a failure starts it or, once it has
 * lasted `disableAfterMs`, disables the endpoint with the reason (and a security log entry).
 */
async function trackFailures(
  ctx: JobContext,
  outcome: { hook: WebhookRecord; status: Exclude<DeliveryStatus, "skipped"> },
) {
  const { id: webhookId, userId } = outcome.hook;
  const now = ctx.now();
  await changeWebhook(ctx.kv, {
    userId,
    webhookId,
    now,
    change: trackedFailures({
      status: outcome.status,
      now,
      disableAfterMs: ctx.webhooks.disableAfterMs,
    }),
    effects: disablingEffects,
  });
}
