/** API key management under /keys: create, list, rename or re-whitelist, regenerate, revoke. */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  ApiKeyCreate,
  ApiKeyMetadata,
  type ApiKeyRecord,
  ApiKeyRegenerate,
  ApiKeyUpdate,
  ApiKeyWithValue,
  generateKeyValue,
  GRACE_MS,
  keyDigest,
  keyHint,
  resolveExpiry,
  toMetadata,
} from "../../domain/api_key.ts";
import { invalid, notFound } from "../../domain/errors.ts";
import { changeApiKey, createApiKey, getApiKey, listApiKeys } from "../../kv/api_keys/api_keys.ts";
import { deleteUsage, readUsage } from "../../kv/api_keys/api_key_usage.ts";
import { UsageRange, UsageSeries } from "../../domain/usage.ts";
import { keyChangeEffects, keyEditEffects } from "../../domain/api_key_effects.ts";
import { editedKey, regeneratedKey, revokedKey } from "../../domain/api_key_changes.ts";
import { originOf } from "../http/request_origin.ts";
import { takeExact } from "../../kv/rate_limit/exact_limit.ts";
import { principalOf } from "../http/authenticate.ts";
import {
  createdContent,
  defineRoute,
  emptyBodyIsNone,
  jsonBody,
  jsonContent,
  Message,
  problem,
  problems,
} from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import type { Settings } from "../../domain/settings.ts";
import type { SecurityEventType } from "../../domain/security_log.ts";
import type { EventType } from "../../domain/webhooks/event.ts";
import { keyCreationPolicy, rateLimited } from "../http/rate_limit.ts";

const KeyId = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const createRouteDef = defineRoute("session", {
  method: "post",
  path: "/keys",
  tags: ["API keys"],
  summary: "Create an API key; its value is in this response only",
  request: { body: jsonBody(ApiKeyCreate) },
  responses: {
    201: createdContent(ApiKeyWithValue, "The new key, with its value shown once"),
    ...problems(400, 401, 403, 409, 413, 415, 429),
    // The one rule of the body no schema holds: it compares with the clock.
    ...problem(
      400,
      "Validation error or malformed JSON, an expiresAt that is not in the future or is more " +
        "than 365 days ahead included",
    ),
  },
});

const listRoute = defineRoute("session", {
  method: "get",
  path: "/keys",
  tags: ["API keys"],
  summary: "The account's keys that are not revoked",
  responses: { 200: jsonContent(z.array(ApiKeyMetadata), "Key metadata"), ...problems(401, 403) },
});

const patchRoute = defineRoute("session", {
  method: "patch",
  path: "/keys/{id}",
  tags: ["API keys"],
  summary: "Rename a key, change its IP whitelist or its own hourly limit",
  request: { params: KeyId, body: jsonBody(ApiKeyUpdate) },
  responses: {
    200: jsonContent(ApiKeyMetadata, "The updated key"),
    ...problems(400, 401, 403, 404),
  },
});

const regenerateRoute = defineRoute("session", {
  method: "post",
  path: "/keys/{id}/regenerate",
  tags: ["API keys"],
  summary: "Give a key a new value; the old one stops at once or after a chosen grace",
  description: "With `expireCurrentIn` other than `now`, both values work until the metadata's " +
    "`previousExpiresAt`. The body is optional: none, or `{}`, means `now`.",
  request: {
    params: KeyId,
    body: { required: false, content: { "application/json": { schema: ApiKeyRegenerate } } },
  },
  responses: {
    200: jsonContent(ApiKeyWithValue, "The key with its new value, shown once"),
    ...problems(400, 401, 403, 404, 413, 415),
  },
}, [emptyBodyIsNone]);

const usageRoute = defineRoute("session", {
  method: "get",
  path: "/keys/{id}/usage",
  tags: ["API keys"],
  summary: "A key's requests by hour (24h, 7d) or by day (90d), split by outcome",
  description: "Counts the requests the key authenticated, whatever their answer; figures from " +
    "every instance are in within a minute.",
  request: {
    params: KeyId,
    query: z.strictObject({
      range: UsageRange.default("24h").openapi({
        param: { name: "range", in: "query" },
        description: "24h and 7d answer hourly buckets, 90d daily ones (UTC)",
      }),
    }),
  },
  responses: {
    200: jsonContent(UsageSeries, "The range's buckets, oldest first"),
    ...problems(400, 401, 403, 404),
  },
});

const revokeRoute = defineRoute("session", {
  method: "delete",
  path: "/keys/{id}",
  tags: ["API keys"],
  summary: "Revoke a key",
  request: { params: KeyId },
  responses: { 200: jsonContent(Message, "Key revoked"), ...problems(401, 403, 404) },
});

/** Holds a key's own hourly limit to the service's (a setting, so not in the schema). */
function checkOwnLimit(limit: number | null | undefined, settings: Settings) {
  if (typeof limit === "number" && limit > settings.RATE_LIMIT_PER_HOUR) {
    throw invalid(
      "rateLimitPerHour",
      `rateLimitPerHour must be at most ${settings.RATE_LIMIT_PER_HOUR}, the service's limit`,
    );
  }
}

/** A key change raising the event and security entry `type`, from the key the change writes. */
function keyEffects(c: Context<AppEnv>, type: EventType & SecurityEventType) {
  const now = c.get("deps").now();
  const context = { now, origin: originOf(c), event: type, security: type };
  return { now, rule: keyChangeEffects, context };
}

export function registerKeys(api: OpenAPIHono<AppEnv>) {
  api.openapi(createRouteDef, async (c) => {
    const { kv, now, settings } = c.get("deps");
    const userId = principalOf(c).userId;
    const input = c.req.valid("json");
    // Exact across instances (one atomic per creation, which is rare); every valid creation
    // request counts, including one refused for the 10-key limit.
    const creations = await takeExact(kv, {
      policy: keyCreationPolicy(settings),
      subject: userId,
      now: now(),
    });
    if (!creations.allowed) {
      throw rateLimited(creations, `At most ${creations.limit} key creations per minute`);
    }
    checkOwnLimit(input.rateLimitPerHour, settings);
    const expiresAt = resolveExpiry(input, now());
    if (expiresAt instanceof Error) throw invalid("expiresAt", expiresAt.message);
    const value = generateKeyValue();
    const record: ApiKeyRecord = {
      id: crypto.randomUUID(),
      userId,
      name: input.name,
      ...keyHint(value),
      digest: await keyDigest(value),
      scopes: input.scopes,
      ipWhitelist: input.ipWhitelist ?? [],
      createdAt: new Date(now()).toISOString(),
      expiresAt,
      lastUsedAt: null,
      lastUsedIp: null,
      revokedAt: null,
      previousDigest: null,
      previousExpiresAt: null,
      rateLimitPerHour: input.rateLimitPerHour ?? null,
    };
    const types = { event: "api_key.created", security: "api_key.created" } as const;
    const effects = keyChangeEffects(null, record, { now: now(), origin: originOf(c), ...types });
    await createApiKey(kv, record, { now: now(), effects });
    c.header("Location", `/api/v1/keys/${record.id}`);
    return c.json({ ...toMetadata(record, now()), key: value }, 201);
  });

  api.openapi(listRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const keys = await listApiKeys(kv, principalOf(c).userId);
    return c.json(keys.map((k) => toMetadata(k, now())), 200);
  });

  api.openapi(patchRoute, async (c) => {
    const { kv, now, apiKeyCache, settings } = c.get("deps");
    const change = c.req.valid("json");
    checkOwnLimit(change.rateLimitPerHour, settings);
    const updated = await changeApiKey(kv, {
      userId: principalOf(c).userId,
      keyId: c.req.valid("param").id,
      change: editedKey(change),
      effects: { now: now(), rule: keyEditEffects, context: { now: now(), origin: originOf(c) } },
    });
    apiKeyCache.clear(); // at once here; other instances see the change marker move
    if (!updated) throw notFound("API key");
    return c.json(toMetadata(updated, now()), 200);
  });

  api.openapi(regenerateRoute, async (c) => {
    const { kv, now, apiKeyCache } = c.get("deps");
    const value = generateKeyValue();
    const digest = await keyDigest(value);
    const { id } = c.req.valid("param");
    // An absent body is validated as {} without the schema's default.
    const expireCurrentIn = c.req.valid("json").expireCurrentIn ?? "now";
    const at = now();
    const updated = await changeApiKey(kv, {
      userId: principalOf(c).userId,
      keyId: id,
      change: regeneratedKey({ ...keyHint(value), digest }, {
        graceMs: GRACE_MS[expireCurrentIn],
        now: at,
      }),
      effects: keyEffects(c, "api_key.regenerated"),
    });
    apiKeyCache.clear();
    if (!updated) throw notFound("API key");
    return c.json({ ...toMetadata(updated, now()), key: value }, 200);
  });

  api.openapi(usageRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const { id } = c.req.valid("param");
    if (!await getApiKey(kv, principalOf(c).userId, id)) throw notFound("API key");
    return c.json(await readUsage(kv, id, c.req.valid("query").range, now()), 200);
  });

  api.openapi(revokeRoute, async (c) => {
    const { kv, now, apiKeyCache } = c.get("deps");
    const revoked = await changeApiKey(kv, {
      userId: principalOf(c).userId,
      keyId: c.req.valid("param").id,
      change: revokedKey(now()),
      effects: keyEffects(c, "api_key.revoked"),
    });
    apiKeyCache.clear();
    if (!revoked) throw notFound("API key");
    await deleteUsage(kv, revoked.id);
    return c.json({ message: "API key revoked" }, 200);
  });
}
