/**
 * The periodic timers of one instance (rate-limit sync, cache polls, last-use flush, the poll of
 * kv/jobs/, which holds the KV jobs). They run while requests come and pause after a spell without
 * any, so an idle instance costs no store reads; the next request restarts them. What a timer keeps catches up on its first use after a pause
 * (a cache polls before trusting itself, a rate-limit subject re-reads its window), so the
 * request that wakes an instance is answered as if it had never slept.
 */

export interface Timer {
  name: string;
  everyMs: number;
  run(): Promise<void>;
  /** Run once more when the jobs pause or stop: the job holds writes not yet in the store. */
  flushes?: boolean;
}

export interface TimersOptions {
  /** Pause after this long without a request; Infinity never pauses. */
  idleAfterMs: number;
  now: () => number;
  onError: (job: string, error: Error) => void;
  /** Told when the jobs pause (true) and resume (false). */
  onIdle?: (idle: boolean) => void;
}

export class Timers {
  readonly #jobs: Timer[] = [];
  readonly #busy = new Map<Timer, Promise<void>>();
  #timers: ReturnType<typeof setInterval>[] = [];
  #lastRequestAt: number;
  #paused = true;
  #stopped = false;
  #lastFlush: Promise<void> = Promise.resolve();

  constructor(private readonly options: TimersOptions) {
    this.#lastRequestAt = options.now();
  }

  add(job: Timer): this {
    this.#jobs.push(job);
    return this;
  }

  /** Starts the jobs, as a request would. */
  start() {
    this.touch();
  }

  /** Notes a request: one clock read, and the jobs restarted when they were paused. */
  touch() {
    this.#lastRequestAt = this.options.now();
    if (this.#paused && !this.#stopped) this.#resume();
  }

  /** True while the jobs are paused for want of requests. */
  get idle(): boolean {
    return this.#paused;
  }

  /**
   * Stops every job for good, after the runs under way and a last run of those holding writes:
   * the store closes once this resolves, and a run still reading then would fail on it.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clearTimers();
    this.#paused = true;
    await this.flushed();
    await this.#flush();
  }

  #resume() {
    this.#paused = false;
    this.options.onIdle?.(false);
    for (const job of this.#jobs) {
      this.#timers.push(setInterval(() => this.#tick(job), job.everyMs));
    }
    if (Number.isFinite(this.options.idleAfterMs)) {
      const check = Math.max(10, Math.min(1_000, this.options.idleAfterMs / 4));
      this.#timers.push(setInterval(() => this.#checkIdle(), check));
    }
  }

  #checkIdle() {
    if (this.options.now() - this.#lastRequestAt < this.options.idleAfterMs) return;
    this.#clearTimers();
    this.#paused = true;
    this.options.onIdle?.(true);
    // Writes still held go out now: a paused instance may be frozen or stopped next.
    this.#lastFlush = this.#flush();
  }

  /** Resolves once the runs under way and the flush that went with the last pause are done. */
  async flushed(): Promise<void> {
    await Promise.all([...this.#busy.values(), this.#lastFlush]);
  }

  #tick(job: Timer) {
    if (this.#busy.has(job)) return; // a slow store must not pile up runs
    this.#busy.set(
      job,
      job.run()
        .catch((error: Error) => this.options.onError(job.name, error))
        .finally(() => this.#busy.delete(job)),
    );
  }

  async #flush() {
    for (const job of this.#jobs.filter((j) => j.flushes)) {
      await job.run().catch((error: Error) => this.options.onError(job.name, error));
    }
  }

  #clearTimers() {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
  }
}
