/**
 * Every Deno KV key shape of the service, built by one named function each, one file a feature
 * under kv/keyspace/. Nothing outside `kv/` spells a key, and everything imports keys from here.
 * Entities are snake_case plurals; indexes are `<entity>_by_<attr>` with the id last, so a prefix
 * lists every match.
 */
export { config, health, jobs, meta } from "./keyspace/system.ts";
export { loginNetworks, securityLog, sessions, users } from "./keyspace/users.ts";
export { apiKeys, apiKeyUsage, keyNotices } from "./keyspace/api_keys.ts";
export { rateLimits } from "./keyspace/rate_limits.ts";
export { applications, idempotencyKeys, projects, tasks } from "./keyspace/tasks.ts";
export { explore, type NameKind } from "./keyspace/explore.ts";
export { webhooks } from "./keyspace/webhooks.ts";
export { reviews } from "./keyspace/reviews.ts";
export { alerts } from "./keyspace/alerts.ts";
export { taskHistory } from "./keyspace/history.ts";
export { conversations } from "./keyspace/conversations.ts";
export { live } from "./keyspace/live.ts";
