/**
 * Settings read from the environment at start-up. Each has a default that works locally; a bad
 * value stops start-up with a message that names the setting.
 */
import { z } from "zod";
import { isLoopback, parseAddressList } from "./ip.ts";
import { plainMessages } from "./validation/validation_messages.ts";
import {
  DEFAULT_DISABLE_AFTER,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_TIMEOUT,
  type DeliveryPolicy,
  parseDuration,
  parseSchedule,
} from "./webhooks/webhook_schedule.ts";

/** A decimal number setting; `z.coerce` would also take " ", "0x10" or "1e3". */
const decimal = (pattern: RegExp, what: string) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    if (typeof value === "number") return value;
    if (pattern.test(value)) return Number(value);
    ctx.addIssue({ code: "custom", message: `must be ${what}, not "${value}"` });
    return z.NEVER;
  });

const wholeNumber = (min: number, max: number, fallback: number) =>
  decimal(/^\d+$/, "a whole number").pipe(z.number().int().min(min).max(max)).default(fallback);

const positiveInt = (fallback: number) => wholeNumber(1, Number.MAX_SAFE_INTEGER, fallback);

/** A duration setting (`5s`, `30m`, `5d`) in milliseconds. */
const duration = (fallback: string) =>
  z.string().default(fallback).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms instanceof Error || ms <= 0) {
      ctx.addIssue({ code: "custom", message: ms instanceof Error ? ms.message : "must be > 0" });
      return z.NEVER;
    }
    return ms;
  });

export const Settings = z.object({
  PORT: wholeNumber(0, 65535, 8000),
  /** Processes `deno task start` serves with on one store; main.ts alone is always one. */
  WORKERS: wholeNumber(1, 64, Math.max(1, navigator.hardwareConcurrency || 1)),
  /**
   * Path of the KV file; `:memory:` for a throwaway store; an http(s) KV Connect URL (a `denokv`
   * server, a Deploy database from outside) with DENO_KV_ACCESS_TOKEN; unset on Deno Deploy.
   */
  KV_PATH: z.string().min(1).optional().refine((v) => !v || !isUrlLike(v) || isKvConnectUrl(v), {
    message: "must be a file path, :memory: or an http(s) KV Connect URL",
  }).refine((v) => !isKvConnectUrl(v) || !plainRemote(v!), {
    message: "a KV Connect URL must be https unless its host is loopback (127.0.0.1, ::1, " +
      "localhost): over plain http the access token and every record would travel in clear",
  }),
  /** HS256 secret for session tokens; generated once and kept in KV when unset. */
  JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SESSION_TTL_HOURS: decimal(/^\d+(\.\d+)?$/, "a number of hours")
    .pipe(z.number().positive().max(24 * 365)).default(12),
  TRUST_PROXY: z.string().default("").transform((value, ctx) => {
    try {
      return parseAddressList(value.split(",").map((s) => s.trim()).filter(Boolean));
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  }),
  RATE_LIMIT_PER_HOUR: positiveInt(1000),
  ANON_RATE_LIMIT_PER_HOUR: positiveInt(1000),
  KEY_CREATION_PER_MINUTE: positiveInt(20),
  ALERT_DELIVERIES_PER_MINUTE: positiveInt(100),
  /** Messages a sender may post per sliding minute, across conversations. */
  MESSAGES_PER_MINUTE: positiveInt(20),
  PASSWORD_HASH_ITERATIONS: positiveInt(600_000),
  /** Sign-ups and logins (each a password hash) per client address per sliding hour. */
  PASSWORD_HASHES_PER_HOUR: positiveInt(100),
  /** Background polls and syncs pause after this long without a request (an idle instance). */
  IDLE_AFTER_SECONDS: decimal(/^\d+(\.\d+)?$/, "a number of seconds")
    .pipe(z.number().positive().max(24 * 3600)).default(60),
  /** How long shared caches may keep anonymous explore pages and task reads; 0: not at all. */
  PUBLIC_CACHE_SECONDS: wholeNumber(0, 300, 5),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /**
   * Lets this instance listen on a port other instances of the service already share
   * (SO_REUSEPORT): off, a port taken by anything but this instance's own workers stops start-up.
   */
  SHARE_PORT: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  /** Refuses every atomic over the strictest backend's limits (kv/store/limits.ts): test processes. */
  KV_CHECK_LIMITS: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  /** Allows webhooks to plain http and to private addresses: local development and tests. */
  WEBHOOK_ALLOW_PRIVATE: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  /** Delays between webhook delivery attempts. */
  WEBHOOK_RETRY_SCHEDULE: z.string().default(DEFAULT_RETRY_SCHEDULE).transform((value, ctx) => {
    const delays = parseSchedule(value);
    if (delays instanceof Error) {
      ctx.addIssue({ code: "custom", message: delays.message });
      return z.NEVER;
    }
    return delays;
  }),
  WEBHOOK_TIMEOUT: duration(DEFAULT_TIMEOUT),
  /** How long an endpoint may fail in a row before it is disabled. */
  WEBHOOK_DISABLE_AFTER: duration(DEFAULT_DISABLE_AFTER),
  /** Base of the absolute URLs the service writes (Link); unset, they follow the request. */
  PUBLIC_URL: z.string().optional().transform((value, ctx) => {
    if (value === undefined) return undefined;
    const base = publicBase(value);
    if (base instanceof Error) {
      ctx.addIssue({ code: "custom", message: base.message });
      return z.NEVER;
    }
    return base;
  }),
});

/** Anything with a scheme (`x://`): a file path has none, and Deno would read it as a URL. */
function isUrlLike(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
}

/** True for a plain-http URL to a host other than this machine. */
function plainRemote(value: string): boolean {
  const url = new URL(value);
  if (url.protocol !== "http:") return false;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host !== "localhost" && !host.endsWith(".localhost") && !isLoopback(host);
}

/** True for a KV_PATH that `Deno.openKv` reaches by KV Connect rather than as a file. */
export function isKvConnectUrl(value: string | undefined): boolean {
  return value !== undefined && /^https?:\/\//i.test(value) && URL.canParse(value);
}

/** `https://api.example.com/prefix/` as `https://api.example.com/prefix`, or why it is refused. */
function publicBase(value: string): string | Error {
  const refused = new Error(
    `must be an http(s) URL without credentials, query or fragment, not "${value}"`,
  );
  if (!URL.canParse(value)) return refused;
  const url = new URL(value);
  const plain = !url.username && !url.password && !url.search && !url.hash &&
    !value.includes("?") && !value.includes("#");
  if (!/^https?:$/.test(url.protocol) || !plain) return refused;
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export type Settings = z.infer<typeof Settings>;
export type SettingsInput = z.input<typeof Settings>;

/** How webhook deliveries behave under these settings. */
export function deliveryPolicy(settings: Settings): DeliveryPolicy {
  return {
    allowPrivate: settings.WEBHOOK_ALLOW_PRIVATE,
    retrySchedule: settings.WEBHOOK_RETRY_SCHEDULE,
    timeoutMs: settings.WEBHOOK_TIMEOUT,
    disableAfterMs: settings.WEBHOOK_DISABLE_AFTER,
    matchedPerMinute: settings.ALERT_DELIVERIES_PER_MINUTE,
  };
}

/** Parses settings from a plain record (the environment); throws naming every bad setting. */
export function parseSettings(env: Record<string, string | undefined>): Settings {
  const present = Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) => {
      const text = value?.trim();
      return text ? [[name, text]] : [];
    }),
  );
  const result = Settings.safeParse(present, plainMessages);
  // The token stays out of Settings (a secret Deno reads itself); only its presence is checked.
  const tokenMissing = isKvConnectUrl(present.KV_PATH) && !present.DENO_KV_ACCESS_TOKEN;
  if (result.success && !tokenMissing) return result.data;
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  if (tokenMissing) {
    problems.push("DENO_KV_ACCESS_TOKEN: must be set when KV_PATH is a KV Connect URL");
  }
  throw new Error(`Invalid settings: ${problems.join("; ")}`);
}
