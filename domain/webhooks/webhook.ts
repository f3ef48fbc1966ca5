/**
 * Webhook endpoints: request and response shapes, the stored record, signing secrets (Standard
 * Webhooks `whsec_` keys, the previous one honoured for 24 hours after a rotation) and signing.
 */
import { z } from "zod";
import { TRIMMED_CLASS, userText } from "../validation/text.ts";
import { Webhook as Signer } from "standardwebhooks";
import { encodeBase64 } from "../base64.ts";
import type { Effects } from "../effects.ts";
import { SERVICE_ORIGIN } from "../security_log.ts";
import type { Grantor } from "./event_access.ts";
import { EventSelection } from "./event.ts";

export const MAX_WEBHOOKS = 10;
/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;

const WebhookUrl = z.string().max(2048, "url must be at most 2,048 characters").trim()
  .refine((url) => URL.canParse(url), "url must be an absolute URL")
  .meta({
    description: "https URL the events are posted to, to a public address (http and private " +
      "addresses only where the service's WEBHOOK_ALLOW_PRIVATE is set, for local testing)",
    // What the service reads as https: surrounding spaces are trimmed, the scheme's case ignored,
    // and a host without credentials must follow (`HTTPS:` alone matched the scheme but is no
    // absolute URL, and `user@` is refused). The spaces are the trim's, written out.
    pattern: `^[${TRIMMED_CLASS}]*[Hh][Tt][Tt][Pp][Ss]://[^${TRIMMED_CLASS}/?#@]+` +
      `(?:[/?#]|[${TRIMMED_CLASS}]*$)`,
    example: "https://example.com/hook",
  });

export const WebhookCreate = z.strictObject({
  url: WebhookUrl,
  events: EventSelection,
  description: userText({
    max: 500,
    multiline: true,
    tooLong: "description must be at most 500 characters",
  }).optional(),
}).meta({ id: "WebhookCreate" });
export type WebhookCreate = z.infer<typeof WebhookCreate>;

export const WebhookPatch = z.strictObject({
  url: WebhookUrl.optional(),
  events: EventSelection.optional(),
  enabled: z.boolean().optional(),
  description: WebhookCreate.shape.description,
}).meta({ id: "WebhookPatch" });
export type WebhookPatch = z.infer<typeof WebhookPatch>;

export const WebhookView = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable().meta({
    description: "Why the service disabled the endpoint (failing for 5 days); null otherwise",
  }),
  failingSince: z.string().nullable().meta({
    description: "Start of the current run of failed deliveries; null after a success",
  }),
  grantedBy: z.object({
    via: z.enum(["session", "api_key"]),
    keyId: z.uuid().nullable().meta({ description: "The API key, when via is api_key" }),
  }).nullable().meta({
    description: "Who last set the URL or events: the endpoint hears only the event types " +
      "they may read (api_key.* a session, task.* tasks:read, application.* " +
      "applications:read), judged again at each event, so a key's revocation, expiry or lost " +
      "scope narrows it. null: set before this was recorded; it hears only webhook.test until " +
      "its URL or events are set again.",
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: "Webhook" });
export type WebhookView = z.infer<typeof WebhookView>;

export const WebhookWithSecret = WebhookView.extend({
  secret: z.string().meta({
    description: "The signing secret (whsec_...), shown only at creation and rotation",
  }),
}).meta({ id: "WebhookWithSecret" });

/** A signing secret, and until when it signs (null: the current one). */
export interface SigningSecret {
  secret: string;
  expiresAt: string | null;
}

/** A stored endpoint. */
export interface WebhookRecord {
  id: string;
  userId: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  /** Who last set the URL or events; absent on records stored before it was kept. */
  grantedBy?: Grantor;
  /** The current secret first; a rotated-out one follows until it expires. */
  secrets: SigningSecret[];
  createdAt: string;
  updatedAt: string;
}

/** `whsec_` + base64 of 24 random bytes. */
export function generateSecret(): string {
  return `whsec_${encodeBase64(crypto.getRandomValues(new Uint8Array(24)))}`;
}

/** A new endpoint: enabled, signing with `secret`, created at `at` (an ISO time). */
export function newWebhook(
  input: {
    userId: string;
    url: string;
    events: string[];
    description?: string;
    secret: string;
    at: string;
    grantedBy: Grantor;
  },
): WebhookRecord {
  return {
    id: crypto.randomUUID(),
    userId: input.userId,
    url: input.url,
    events: input.events,
    description: input.description ?? "",
    enabled: true,
    disabledReason: null,
    failingSince: null,
    grantedBy: input.grantedBy,
    secrets: [{ secret: input.secret, expiresAt: null }],
    createdAt: input.at,
    updatedAt: input.at,
  };
}

/** The record's public shape (never its secrets). */
export function toWebhookView(hook: WebhookRecord): WebhookView {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    description: hook.description,
    enabled: hook.enabled,
    disabledReason: hook.disabledReason,
    failingSince: hook.failingSince,
    grantedBy: hook.grantedBy
      ? {
        via: hook.grantedBy.via,
        keyId: hook.grantedBy.via === "api_key" ? hook.grantedBy.keyId : null,
      }
      : null,
    createdAt: hook.createdAt,
    updatedAt: hook.updatedAt,
  };
}

/** A new secret becomes current; the old one keeps signing for 24 hours, older ones go. */
export function rotateSecret(hook: WebhookRecord, secret: string, now: number): WebhookRecord {
  const current = hook.secrets[0];
  const previous = {
    secret: current.secret,
    expiresAt: new Date(now + PREVIOUS_SECRET_MS).toISOString(),
  };
  return {
    ...hook,
    secrets: [{ secret, expiresAt: null }, previous],
    updatedAt: new Date(now).toISOString(),
  };
}

/** Secrets that still sign at `now`, current first. */
export function signingSecrets(hook: WebhookRecord, now: number): string[] {
  return hook.secrets
    .filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now)
    .map((s) => s.secret);
}

/**
 * The Standard Webhooks signature header: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` per
 * secret, space-separated, so a receiver holding either secret verifies during a rotation.
 */
export function signatureHeader(
  secrets: readonly string[],
  message: { id: string; at: Date; body: string },
): string {
  return secrets.map((secret) => new Signer(secret).sign(message.id, message.at, message.body))
    .join(" ");
}

/** A change that disabled an endpoint (the service's, after its failures) is logged as such. */
export function disablingEffects(
  before: WebhookRecord | null,
  after: WebhookRecord | null,
): Effects {
  if (!before?.enabled || !after || after.enabled) return {};
  return { security: { type: "webhook.disabled", origin: SERVICE_ORIGIN, webhookId: after.id } };
}
