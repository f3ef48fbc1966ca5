/** Shared by the API key tests: what a request made with a key is answered, as a status alone. */
import { apiKey, type TestContext } from "./helpers.ts";

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
