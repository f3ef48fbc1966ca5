/** Shared by the API key tests: key metadata fields, creating keys, and statuses alone. */
import { apiKey, bearer, type TestContext } from "../helpers.ts";

/** The status of a request with `key` (GET /v1/users/me unless `path` says), its body dropped. */
export async function keyStatus(
  svc: TestContext,
  key: string,
  request: { path?: string; ip?: string } = {},
): Promise<number> {
  const res = await svc.request(request.path ?? "/v1/users/me", {
    headers: apiKey(key),
    ip: request.ip,
  });
  await res.body?.cancel();
  return res.status;
}

export const METADATA_FIELDS = [
  "createdAt",
  "expiresAt",
  "id",
  "ipWhitelist",
  "last4",
  "lastUsedAt",
  "lastUsedIp",
  "name",
  "prefix",
  "previousExpiresAt",
  "rateLimitPerHour",
  "scopes",
  "status",
];
export const DAY = 86_400_000;
// Many creations per test: lift the per-minute creation budget out of the way; sessions that
// outlive the days the tests' clocks skip.
export const MANY = { KEY_CREATION_PER_MINUTE: 10_000, SESSION_TTL_HOURS: 24 * 30 };

export function postKey(svc: TestContext, token: string, json: unknown) {
  return svc.request("/api/v1/keys", { method: "POST", headers: bearer(token), json });
}

export async function statusOf(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}
