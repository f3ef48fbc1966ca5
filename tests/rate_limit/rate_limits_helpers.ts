/** Clock instants and request helpers shared by the rate-limit tests (tests/rate_limit/rate_limits_*test.ts). */
import assert from "node:assert/strict";
import { apiKey, type TestContext } from "../helpers.ts";

export const HOUR = 3_600_000;
export const MINUTE = 60_000;
/** Half past an hour, on a minute's start: a unit admitted now leaves exactly an hour later. */
export const HALF_PAST = Date.parse("2030-03-01T12:30:00.000Z");
export const at = (hhmmss: string) => Date.parse(`2030-03-01T${hhmmss}.000Z`);

export function rateLimitT(res: Response): number {
  return Number(/^"default";r=\d+;t=(\d+)$/.exec(res.headers.get("RateLimit")!)?.[1]);
}

export function me(svc: TestContext, key: string, ip?: string) {
  return svc.request("/v1/users/me", { headers: apiKey(key), ip });
}

export async function statusOf(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

/** Sends `send` until it is refused (at most `max` times); returns how many were allowed. */
export async function admitted(send: () => Promise<Response>, max = 100): Promise<number> {
  for (let i = 0; i < max; i++) {
    const res = await send();
    await res.body?.cancel();
    if (res.status === 429) return i;
    assert.equal(res.status, 200);
  }
  return max;
}
