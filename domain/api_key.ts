/**
 * API key values and metadata rules: `svc_` + 64 lowercase hex, the last 8 being the CRC-32 of
 * the first 56, so a mistyped or made-up key is refused without a storage read.
 */
import { z } from "zod";
import { Scope } from "./auth.ts";
import { crc32, sha256Hex, toHex } from "./bytes.ts";
import { IP_RANGE_PATTERN, parseRange } from "./ip.ts";
import { userText } from "./validation/text.ts";

export const KEY_PREFIX = "svc_";
const KEY_SHAPE = /^svc_[0-9a-f]{64}$/;
/**
 * A revoked key's record is kept this long after its revocation (out of the account's live keys),
 * then dropped: nothing reads it but support looking into a revocation.
 */
export const REVOKED_KEY_RETENTION_MS = 30 * 86_400_000;
/**
 * An expired key's record is kept this long after its expiry, out of the account's live keys:
 * GET /keys still shows it as expired, and its value answers "expired at" rather than "unknown".
 */
export const EXPIRED_KEY_RETENTION_MS = 30 * 86_400_000;

export const MAX_ACTIVE_KEYS = 10;
export const MAX_KEY_DAYS = 365;

/** Generates a fresh key value with its CRC-32 tail. */
export function generateKeyValue(): string {
  const body = toHex(crypto.getRandomValues(new Uint8Array(28)));
  return `${KEY_PREFIX}${body}${crc32(body).toString(16).padStart(8, "0")}`;
}

/** True when the value has the key shape and a matching checksum; no storage is touched. */
export function isWellFormedKey(value: string): boolean {
  if (!KEY_SHAPE.test(value)) return false;
  const body = value.slice(4, 60);
  return crc32(body).toString(16).padStart(8, "0") === value.slice(60);
}

/** The digest under which a key is stored; the value itself never is. */
export function keyDigest(value: string): Promise<string> {
  return sha256Hex(value);
}

/** What the key shows of itself after creation: its first 8 characters and its last 4. */
export function keyHint(value: string): { prefix: string; last4: string } {
  return { prefix: value.slice(0, 8), last4: value.slice(-4) };
}

const notARange = (entry: unknown) =>
  `"${String(entry).trim()}" is not an IP address or CIDR range`;
const IpEntry = z.string().regex(new RegExp(IP_RANGE_PATTERN), {
  error: (issue) => notARange(issue.input),
}).transform((value, ctx) => {
  try {
    return parseRange(value).text;
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

export const IpWhitelist = z.array(IpEntry).max(50, "at most 50 entries").meta({
  description: "IPv4/IPv6 addresses or CIDR ranges; an empty list allows every address",
  example: ["203.0.113.7", "10.0.0.0/8", "2001:db8::/32"],
});

const KeyName = userText({
  min: 1,
  max: 100,
  tooShort: "name must not be empty",
  tooLong: "name must be at most 100 characters",
});

/** A key's own hourly budget; the route also holds it to the service's RATE_LIMIT_PER_HOUR. */
const RateLimitPerHour = z.number().int().min(1, "rateLimitPerHour must be at least 1").meta({
  description: "The key's own requests per hour, 1 to the service's RATE_LIMIT_PER_HOUR",
  example: 100,
});

export const ApiKeyCreate = z.strictObject({
  name: KeyName,
  scopes: z.array(Scope).min(1, "at least one scope").transform((s) => [...new Set(s)]),
  expiresInDays: z.number().int().min(1).max(MAX_KEY_DAYS).optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional().meta({
    description: "When the key stops working: after the request and at most 365 days after it " +
      "(400 otherwise; JSON Schema cannot compare with the clock, so the schema does not say it)",
  }),
  ipWhitelist: IpWhitelist.optional(),
  rateLimitPerHour: RateLimitPerHour.optional(),
}).refine((v) => (v.expiresInDays === undefined) !== (v.expiresAt === undefined), {
  message: "give exactly one of expiresInDays or expiresAt",
  path: ["expiresInDays"],
}).meta({
  id: "ApiKeyCreate",
  // The refinement above, stated for clients: exactly one of the two expiries.
  oneOf: [{ required: ["expiresInDays"] }, { required: ["expiresAt"] }],
});
export type ApiKeyCreate = z.infer<typeof ApiKeyCreate>;

export const ApiKeyUpdate = z.strictObject({
  name: KeyName.optional(),
  ipWhitelist: IpWhitelist.optional(),
  rateLimitPerHour: RateLimitPerHour.nullable().optional().meta({
    description: "The key's own requests per hour; null returns it to the service's default",
  }),
}).meta({ id: "ApiKeyUpdate" });
export type ApiKeyUpdate = z.infer<typeof ApiKeyUpdate>;

export const ApiKeyMetadata = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().meta({ example: "svc_1a2b" }),
  last4: z.string(),
  scopes: z.array(Scope),
  ipWhitelist: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string(),
  lastUsedAt: z.string().nullable(),
  lastUsedIp: z.string().nullable().meta({
    description:
      "The address the key was last used from (kept to within a minute); null until used",
  }),
  previousExpiresAt: z.string().nullable().meta({
    description:
      "While a regeneration's grace runs, when the previous value stops working; null otherwise",
  }),
  rateLimitPerHour: z.number().int().nullable().meta({
    description: "The key's own requests per hour; null when it has the service's default",
  }),
  status: z.enum(["active", "expired"]),
}).meta({ id: "ApiKey" });
export type ApiKeyMetadata = z.infer<typeof ApiKeyMetadata>;

export const ApiKeyWithValue = ApiKeyMetadata.extend({
  key: z.string().meta({ description: "The key's value, shown this once" }),
}).meta({ id: "ApiKeyWithValue" });

/** A stored key: metadata plus what storage needs, never the value itself. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  last4: string;
  digest: string;
  scopes: Scope[];
  ipWhitelist: string[];
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  // Optional: records stored before these fields existed lack them; read each with `?? null`.
  lastUsedIp?: string | null;
  /** The value before the last regeneration, while it may still work (see `previousExpiresAt`). */
  previousDigest?: string | null;
  previousExpiresAt?: string | null;
  rateLimitPerHour?: number | null;
}

/** Active means neither revoked nor past its expiry. */
export function isActive(key: ApiKeyRecord, now: number): boolean {
  return key.revokedAt === null && Date.parse(key.expiresAt) > now;
}

/** The expiry of a new key, validated against the 365-day ceiling. */
export function resolveExpiry(input: ApiKeyCreate, now: number): string | Error {
  const day = 86_400_000;
  if (input.expiresInDays !== undefined) {
    return new Date(now + input.expiresInDays * day).toISOString();
  }
  const at = Date.parse(input.expiresAt!);
  if (at <= now) return new Error("expiresAt must be in the future");
  if (at > now + MAX_KEY_DAYS * day) return new Error("expiresAt must be within 365 days");
  return new Date(at).toISOString();
}

/** The public metadata of a stored key. */
export function toMetadata(key: ApiKeyRecord, now: number): ApiKeyMetadata {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    last4: key.last4,
    scopes: key.scopes,
    ipWhitelist: key.ipWhitelist,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    lastUsedAt: key.lastUsedAt,
    lastUsedIp: key.lastUsedIp ?? null,
    previousExpiresAt: previousDeadline(key, now),
    rateLimitPerHour: key.rateLimitPerHour ?? null,
    status: Date.parse(key.expiresAt) > now ? "active" : "expired",
  };
}

/** How long a regeneration may keep the current value working (docs/contract.md section 14). */
export const GRACE_MS = {
  now: 0,
  "1h": 3_600_000,
  "24h": 86_400_000,
  "7d": 7 * 86_400_000,
} as const;

// Strict: a misspelt option must not silently mean `now`, which ends the value in use at once.
export const ApiKeyRegenerate = z.strictObject({
  expireCurrentIn: z.enum(["now", "1h", "24h", "7d"]).default("now").meta({
    description: "How long the current value keeps working beside the new one; `now` ends it " +
      "at once. A regeneration during a grace ends the older previous value at once.",
  }),
}).meta({ id: "ApiKeyRegenerate" });
export type ApiKeyRegenerate = z.infer<typeof ApiKeyRegenerate>;

/** A presented value resolved to its key: the current value, or the one before it. */
export interface KeyMatch {
  key: ApiKeyRecord;
  previous: boolean;
}

/** Which of the key's values has `digest`, or null when neither. */
export function matchDigest(key: ApiKeyRecord, digest: string): KeyMatch | null {
  if (key.digest === digest) return { key, previous: false };
  if (key.previousDigest === digest) return { key, previous: true };
  return null;
}

/**
 * True when the value authenticates at `now`: the key is active, and a previous value only
 * before its deadline. Judged per request from the record's own times, so a cached record stops
 * the old value at its deadline with nothing else changing.
 */
export function isLive(match: KeyMatch, now: number): boolean {
  if (!isActive(match.key, now)) return false;
  return !match.previous || previousDeadline(match.key, now) !== null;
}

/**
 * When a value that no longer authenticates stopped working by the clock: the previous value's
 * deadline, or the key's expiry. Null while it works, and for a revoked key, which must answer
 * as an unknown one does.
 */
export function expiredAt(match: KeyMatch, now: number): string | null {
  if (match.key.revokedAt !== null || isLive(match, now)) return null;
  if (match.previous && match.key.previousExpiresAt) return match.key.previousExpiresAt;
  return Date.parse(match.key.expiresAt) <= now ? match.key.expiresAt : null;
}

/** When the previous value stops, while it still works; null when there is none. */
export function previousDeadline(key: ApiKeyRecord, now: number): string | null {
  const at = key.previousExpiresAt ?? null;
  return key.previousDigest && at && Date.parse(at) > now ? at : null;
}

/**
 * The key after a regeneration to `next`: with a grace, the current value becomes the previous
 * one until then (never past the key's own expiry); any older previous value ends at once.
 */
export function rolled(
  key: ApiKeyRecord,
  next: { digest: string; prefix: string; last4: string },
  graceMs: number,
  now: number,
): ApiKeyRecord {
  const until = Math.min(now + graceMs, Date.parse(key.expiresAt));
  const keepsOld = graceMs > 0 && until > now;
  return {
    ...key,
    ...next,
    previousDigest: keepsOld ? key.digest : null,
    previousExpiresAt: keepsOld ? new Date(until).toISOString() : null,
  };
}
