/** A service on in-memory KV with its job runner running, and shortcuts for endpoints. */
import { buildListeners } from "../../kv/webhooks/listeners.ts";
import { deliveryPolicy } from "../../domain/settings.ts";
import { testSettings } from "../settings_fixtures.ts";
import type { DeliveryPolicy } from "../../domain/webhooks/webhook_schedule.ts";
import type { JobRunner } from "../../kv/jobs/runner.ts";
import { startJobs } from "../../kv/jobs/start.ts";
import assert from "node:assert/strict";
import { bearer, setup, type TestContext } from "../helpers.ts";
import type { SettingsInput } from "../../domain/settings.ts";
import { until } from "../wait.ts";

/** Fast retries and a short timeout, so that a test sees the whole schedule in seconds. */
export const FAST: Partial<DeliveryPolicy> = {
  retrySchedule: [100, 200, 300],
  timeoutMs: 2_000,
};

export interface WorkingService extends TestContext {
  policy: DeliveryPolicy;
  /** The service's job runner: `jobs.drain()` waits until no job is due and none runs. */
  jobs: JobRunner;
}

/**
 * A service allowing private targets (the receiver is on 127.0.0.1), with its job runner,
 * stopped with the store at the end of the test.
 */
export async function workingService(
  options: {
    policy?: Partial<DeliveryPolicy>;
    settings?: Partial<SettingsInput>;
    /** A store of the test's own (left open); else a fresh one in memory. */
    kv?: Deno.Kv;
  } = {},
): Promise<WorkingService> {
  const settings: Partial<SettingsInput> = { WEBHOOK_ALLOW_PRIVATE: "true", ...options.settings };
  const svc = await setup({ settings, kv: options.kv });
  // As main.ts at start-up on a new store: the task.matched listeners' shards, complete.
  await buildListeners(svc.kv);
  const policy = { ...deliveryPolicy(testSettings(settings)), ...FAST, ...options.policy };
  // Reads deps.now at each call, so a clock a test swaps in drives the jobs too.
  const jobs = startJobs({ kv: svc.kv, now: () => svc.deps.now(), webhooks: policy });
  return {
    ...svc,
    policy,
    jobs,
    async [Symbol.asyncDispose]() {
      await jobs.stop();
      await svc[Symbol.asyncDispose]();
    },
  };
}

/** Adds an endpoint through the API; returns its id and secret. */
export async function addEndpoint(
  t: TestContext,
  token: string,
  body: { url: string; events?: string[]; description?: string },
) {
  const res = await t.request("/v1/webhooks", {
    method: "POST",
    headers: bearer(token),
    json: { events: ["*"], ...body },
  });
  if (res.status !== 201) throw new Error(`endpoint creation failed: ${await res.text()}`);
  const hook = await res.json();
  return { id: hook.id as string, secret: hook.secret as string, view: hook };
}

/** The endpoint's deliveries, through the API. */
export async function deliveries(
  svc: { request: (path: string, init?: { headers?: HeadersInit }) => Promise<Response> },
  token: string,
  webhookId: string,
) {
  const res = await svc.request(`/v1/webhooks/${webhookId}/deliveries`, {
    headers: bearer(token),
  });
  assert.equal(res.status, 200);
  return await res.json();
}

/** Sends the endpoint a webhook.test event through the API. */
export async function sendTestEvent(t: TestContext, token: string, webhookId: string) {
  const res = await t.request(`/v1/webhooks/${webhookId}/test`, {
    method: "POST",
    headers: bearer(token),
  });
  await res.body?.cancel();
}

/** The endpoint's first delivery, once it has failed for good. */
export async function failedDelivery(t: TestContext, token: string, webhookId: string) {
  await waitUntil(async () => (await deliveries(t, token, webhookId))[0]?.status === "failed");
  const [delivery] = await deliveries(t, token, webhookId);
  return delivery;
}

/**
 * Polls `condition` until it holds (tests/wait.ts: a deadline only against hanging). Its checks
 * are requests: slowing to one a second keeps a long wait on a loaded machine within the
 * caller's hourly budget.
 */
export async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 60_000) {
  await until(condition, { timeoutMs, everyMs: 50, maxEveryMs: 1_000 });
}
