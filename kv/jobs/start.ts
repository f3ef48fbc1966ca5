/**
 * Starts this process's job runner: woken by its own job writes, by a timer at the next due time
 * it knows, by the instance's periodic poll while active (`jobPollTimer`), and by the cron (`drain`).
 */
import { deliveryPolicy, Settings } from "../../domain/settings.ts";
import type { Timer } from "../../io/timers.ts";
import type { DeliveryPolicy } from "../../domain/webhooks/webhook_schedule.ts";
import { jobHandlers } from "./handlers.ts";
import { JobRunner, POLL_MS } from "./runner.ts";
import type { Shares } from "./fair_share.ts";

export interface JobsOptions {
  kv: Deno.Kv;
  now: () => number;
  /** Without one, the settings' defaults (the real retry schedule, public https targets only). */
  webhooks?: DeliveryPolicy;
  leaseMs?: number;
  onError?: (what: string, error: Error) => void;
  /** The lanes' shares of the slots (default: kv/jobs/fair_share.ts `SHARES`). */
  shares?: Shares;
}

/** A runner listening to this process's job writes; scans once at once for what is due. */
export function startJobs(options: JobsOptions): JobRunner {
  const runner = new JobRunner({
    handlers: jobHandlers,
    context: {
      kv: options.kv,
      now: options.now,
      webhooks: options.webhooks ?? deliveryPolicy(Settings.parse({})),
    },
    leaseMs: options.leaseMs,
    onError: options.onError,
    shares: options.shares,
  }).listen();
  void runner.scan();
  return runner;
}

/** The instance's periodic look for jobs other instances wrote or left (paused when idle). */
export function jobPollTimer(runner: JobRunner): Timer {
  return { name: "jobs poll", everyMs: POLL_MS, run: () => runner.scan() };
}
