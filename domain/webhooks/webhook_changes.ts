/**
 * A webhook endpoint's changes as pure transitions: each takes the endpoint as the store reads it
 * (null: absent) with the account's endpoints, and answers the endpoint to write, `DELETE`, or
 * null to write nothing. kv runs one inside its check-and-retry loop (changeWebhook), serialized by
 * the account's subscription entry, and again on a fresh read after a concurrent change, so the
 * 10-endpoint limit stays exact and a partial edit is never lost. A route or job builds one from
 * what it knows (who, what, when) and passes it down: nothing in it calls back into its caller.
 */
import { AppError } from "../errors.ts";
import type { Principal } from "../auth.ts";
import type { DeliveryStatus } from "./delivery.ts";
import { grantorFor } from "./event_access.ts";
import { MAX_WEBHOOKS, rotateSecret, type WebhookPatch, type WebhookRecord } from "./webhook.ts";

/** `DELETE` as a change's outcome removes the endpoint. */
export const DELETE = Symbol("delete");

/** The endpoint to write given the stored one and the account's: a record, DELETE or null. */
export type WebhookTransition = (
  hook: WebhookRecord | null,
  all: readonly WebhookRecord[],
) => WebhookRecord | typeof DELETE | null;

/** A new endpoint, unless the account has 10 already (409 WEBHOOK_LIMIT_REACHED). */
export function addedWebhook(hook: WebhookRecord): WebhookTransition {
  return (_, all) => {
    if (all.length >= MAX_WEBHOOKS) {
      throw new AppError(
        "WEBHOOK_LIMIT_REACHED",
        `An account may have at most ${MAX_WEBHOOKS} webhook endpoints; delete one first`,
      );
    }
    return hook;
  };
}

/** A PATCH by `caller` at `at`, with its URL already checked against the target rules. */
export interface WebhookEdit {
  patch: WebhookPatch;
  /** The patch's URL as checked (absent: unchanged). */
  url?: string;
  caller: Principal;
  at: string;
}

/** The owner's edit of an existing endpoint; an absent one writes nothing. */
export function editedWebhook(edit: WebhookEdit): WebhookTransition {
  const { patch, url, caller, at } = edit;
  return (hook) => {
    if (!hook) return null;
    const enabling = patch.enabled === true && !hook.enabled;
    // Whoever sets where events go, or which, grants them: checked against the events the
    // endpoint will have. A description or an on/off switch keeps the grantor.
    const regranted = patch.url !== undefined || patch.events !== undefined;
    const grantedBy = regranted ? grantorFor(caller, patch.events ?? hook.events) : hook.grantedBy;
    return {
      ...hook,
      grantedBy,
      url: url ?? hook.url,
      events: patch.events ?? hook.events,
      description: patch.description ?? hook.description,
      enabled: patch.enabled ?? hook.enabled,
      // Enabled again by its owner: the failure run starts over.
      disabledReason: enabling || patch.enabled === false ? null : hook.disabledReason,
      failingSince: enabling ? null : hook.failingSince,
      updatedAt: at,
    };
  };
}

/** The endpoint removed, when it exists. */
export function removedWebhook(): WebhookTransition {
  return (hook) => hook ? DELETE : null;
}

/** A new signing secret at `now`, the old one signing beside it for a while (`rotateSecret`). */
export function rotatedWebhook(secret: string, now: number): WebhookTransition {
  return (hook) => hook ? rotateSecret(hook, secret, now) : null;
}

/** A delivery's outcome for its endpoint's run of failures, at `now`. */
export interface DeliveryOutcome {
  status: Exclude<DeliveryStatus, "skipped">;
  now: number;
  /** How long a run of failures lasts before the endpoint is disabled. */
  disableAfterMs: number;
}

/**
 * The endpoint's run of failures after a delivery: a success ends it, a failure starts it or,
 * once it has lasted `disableAfterMs`, disables the endpoint with the reason. Null when nothing
 * changes.
 */
export function trackedFailures(outcome: DeliveryOutcome): WebhookTransition {
  const { status, now } = outcome;
  const at = new Date(now).toISOString();
  return (hook) => {
    if (!hook) return null;
    if (status === "succeeded") return hook.failingSince ? { ...hook, failingSince: null } : null;
    if (!hook.failingSince) return { ...hook, failingSince: at };
    if (!hook.enabled || now - Date.parse(hook.failingSince) < outcome.disableAfterMs) {
      return null;
    }
    return {
      ...hook,
      enabled: false,
      disabledReason: `Disabled on ${at}: every delivery failed since ${hook.failingSince}`,
      updatedAt: at,
    };
  };
}
