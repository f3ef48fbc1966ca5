/**
 * The security log of an account (docs/contract.md section 13): what happened to its sign-ins,
 * credentials, webhook endpoints and profile, with the client address and user agent.
 */
import { z } from "zod";

export const SECURITY_EVENT_TYPES = [
  "session.signed_in",
  "session.sign_in_failed",
  "session.signed_out",
  "api_key.created",
  "api_key.regenerated",
  "api_key.revoked",
  "api_key.updated",
  "api_key.whitelist_changed",
  "api_key.expired",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "webhook.disabled",
  "webhook.delivery_skipped",
  "webhook.deliveries_delayed",
  "profile.updated",
] as const;

export const SecurityEventType = z.enum(SECURITY_EVENT_TYPES).meta({ id: "SecurityEventType" });
export type SecurityEventType = z.infer<typeof SecurityEventType>;

/** Entries are kept this long (expireIn), then leave the log by themselves. */
export const SECURITY_LOG_RETENTION_MS = 90 * 86_400_000;

export const SecurityLogEntry = z.object({
  id: z.string().meta({ description: "ULID; entries sort newest first by it" }),
  type: SecurityEventType,
  createdAt: z.string(),
  ip: z.string().nullable().meta({ description: "Client address; null for the service's own" }),
  userAgent: z.string().nullable(),
  keyId: z.string().optional(),
  webhookId: z.string().optional(),
  reason: z.string().optional().meta({
    description: "webhook.delivery_skipped: why (the delivery attempt's category); " +
      "webhook.deliveries_delayed: which budget was reached",
  }),
}).meta({ id: "SecurityLogEntry" });
export type SecurityLogEntry = z.infer<typeof SecurityLogEntry>;

/** Who caused a change: the request's client address and user agent (null: the service). */
export interface Origin {
  ip: string | null;
  userAgent: string | null;
}

/** The service acting on its own (expiries, disabling a failing endpoint). */
export const SERVICE_ORIGIN: Origin = { ip: null, userAgent: null };

/** What a change writes into the log; id and time are added where it is written. */
export interface SecurityDraft {
  type: SecurityEventType;
  origin: Origin;
  keyId?: string;
  webhookId?: string;
  reason?: string;
}

/** A log entry from a draft. */
export function securityEntry(draft: SecurityDraft, id: string, at: string): SecurityLogEntry {
  return {
    id,
    type: draft.type,
    createdAt: at,
    ip: draft.origin.ip,
    userAgent: draft.origin.userAgent?.slice(0, 512) ?? null,
    ...(draft.keyId ? { keyId: draft.keyId } : {}),
    ...(draft.webhookId ? { webhookId: draft.webhookId } : {}),
    ...(draft.reason ? { reason: draft.reason } : {}),
  };
}
