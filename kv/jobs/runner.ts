/**
 * Runs due jobs: a scan lists the jobs due by a little past now (one read), claims each due one
 * under a lease and runs its handler, and sets a timer for the earliest one not yet due. Scans
 * run when this process commits a job (the nudge), at that timer, on the instance's periodic
 * poll while it is active, and on the cron. While a handler runs its lease is renewed, so a live
 * runner keeps its job and a dead one's job is due again when its lease ends.
 */
import { jobs } from "../keyspace.ts";
import { claimJob, finishJob, type Held, renewLease } from "./lease.ts";
import type { JobContext, JobHandlers, JobOutcome, JobPayload, JobRecord } from "./types.ts";
import { onJobWritten } from "./wake.ts";
import { type Lanes, lanesOf, MAX_RUNNING, type Shares, SlotLedger } from "./fair_share.ts";

/** How long a claim holds a job without renewal: a dead runner's job is due again after this. */
export const LEASE_MS = 10_000;
/** How often an active instance looks for jobs that other instances wrote or left. */
export const POLL_MS = 5_000;
/** A scan also reads the jobs due this soon, and times the first of them. */
const LOOKAHEAD_MS = POLL_MS + 1_000;
/**
 * Jobs read per scan at most; a full read that claimed something scans again. Jobs over their
 * share (fair_share.ts) are passed over, so a scan reads past one account's backlog to the
 * others' jobs behind it.
 */
const SCAN_LIMIT = 2_000;
/** Delay before a failed run runs again, by its failures so far; the last repeats, no end. */
const FAILURE_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000];
/** Stop waits this long for running handlers; their leases cover the rest. */
const STOP_GRACE_MS = 5_000;

export interface RunnerOptions {
  handlers: JobHandlers;
  context: JobContext;
  leaseMs?: number;
  /** Told of a failed run (`what`: the job's kind and id) or scan. */
  onError?: (what: string, error: Error) => void;
  /** The lanes' shares of the slots (default SHARES); the fairness bench compares without. */
  shares?: Shares;
}

export class JobRunner {
  /** Names this runner in the leases it takes. */
  readonly owner = crypto.randomUUID();
  readonly #running = new Map<string, Promise<void>>();
  #scan: Promise<void> | null = null;
  #rescan = false;
  /** Jobs were left for want of a free slot, or over their share: look again when a run ends. */
  #full = false;
  readonly #ledger: SlotLedger;
  #started = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  #stopped = false;
  #unlisten = () => {};

  constructor(private readonly options: RunnerOptions) {
    this.#ledger = new SlotLedger(options.shares);
  }

  get #leaseMs() {
    return this.options.leaseMs ?? LEASE_MS;
  }

  #now() {
    return this.options.context.now();
  }

  /** Wakes on every job this process commits. */
  listen(): this {
    this.#unlisten = onJobWritten((due) => this.nudge(due));
    return this;
  }

  /** A job due at `due` exists: scan now if it is due, or time it if it is due soon. */
  nudge(due: number) {
    if (this.#stopped) return;
    const now = this.#now();
    if (due <= now) void this.scan();
    else if (due - now <= LOOKAHEAD_MS) this.#timeAt(due);
  }

  /** One look at the store (or joins the one under way, which then looks again). */
  scan(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#scan) {
      this.#rescan = true;
      return this.#scan;
    }
    this.#scan = (async () => {
      try {
        do {
          this.#rescan = false;
          await this.#scanOnce();
        } while (this.#rescan && !this.#stopped);
      } catch (error) {
        // The store failing (or closed at shutdown): the next wake looks again.
        this.options.onError?.("scan", error instanceof Error ? error : new Error(String(error)));
      }
    })().finally(() => {
      this.#scan = null;
      // A wake that joined this scan after its last look (between the loop's end and now) would
      // otherwise be lost: its job would wait for the next poll or the cron.
      if (this.#rescan && !this.#stopped) void this.scan();
    });
    return this.#scan;
  }

  /** Scans until no job is due and none runs: the cron's and the tests' whole pass. */
  async drain(): Promise<void> {
    while (!this.#stopped) {
      const before = this.#started;
      await this.scan();
      if (this.#running.size > 0) {
        await Promise.all(this.#running.values());
        continue;
      }
      if (this.#started === before) return;
    }
  }

  /** Stops scanning; waits a little for the handlers under way (their leases cover the rest). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten();
    clearTimeout(this.#timer);
    this.#timerAt = Infinity;
    let grace: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all([this.#scan, ...this.#running.values()]),
      new Promise((resolve) => grace = setTimeout(resolve, STOP_GRACE_MS)),
    ]);
    clearTimeout(grace);
  }

  #timeAt(at: number) {
    if (this.#stopped || at >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timerAt = Infinity;
      void this.scan();
    }, Math.max(0, at - this.#now()));
  }

  async #scanOnce() {
    const { kv } = this.options.context;
    const now = this.#now();
    const page = kv.list<JobRecord>(
      { start: jobs.start(), end: jobs.dueBefore(now + LOOKAHEAD_MS) },
      { limit: SCAN_LIMIT, batchSize: 500 },
    );
    let read = 0;
    let claimed = 0;
    for await (const entry of page) {
      read++;
      const due = entry.key[1] as number;
      if (this.#running.has(entry.value.id)) continue;
      if (due > now) {
        this.#timeAt(due); // listed by due time: the first not due is the next one
        return;
      }
      if (this.#running.size >= MAX_RUNNING) {
        this.#full = true;
        return;
      }
      const lanes = lanesOf(entry.value.payload);
      if (!this.#ledger.admits(lanes)) {
        this.#full = true; // its turn comes when one of its lane's runs ends
        continue;
      }
      // Taken before the claim's await, so that no other job of the lane passes meanwhile.
      this.#ledger.take(lanes);
      const held = await claimJob(kv, entry, { owner: this.owner, until: now + this.#leaseMs });
      if (held) {
        claimed++;
        this.#start(held, lanes);
      } else this.#ledger.give(lanes);
    }
    // Only a read that claimed something looks again at once: one of jobs all over their share
    // waits for a run to end.
    if (read === SCAN_LIMIT && claimed > 0) this.#rescan = true;
  }

  #start(held: Held, lanes: Lanes) {
    const { id } = held.record;
    this.#started++;
    const run = this.#run(held)
      .catch((error: Error) => this.#failed(held.record, error))
      .finally(() => {
        this.#ledger.give(lanes);
        this.#running.delete(id);
        if (this.#full) {
          this.#full = false;
          void this.scan();
        }
      });
    this.#running.set(id, run);
  }

  async #run(claimed: Held) {
    const { kv } = this.options.context;
    let held: Held | null = claimed;
    let renewal = Promise.resolve();
    const renew = setInterval(() => {
      renewal = renewal.then(async () => {
        if (held) held = await renewLease(kv, held, this.#now() + this.#leaseMs).catch(() => held);
      });
    }, this.#leaseMs / 3);
    let outcome: JobOutcome = undefined;
    let failure: Error | null = null;
    try {
      outcome = await this.#handle(claimed.record.payload);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    } finally {
      clearInterval(renew);
    }
    await renewal;
    if (!held) return; // the lease ran out: the job is another runner's now
    if (failure) {
      this.#failed(held.record, failure);
      const backoff = FAILURE_BACKOFF_MS[Math.min(held.record.failures, 4)];
      await finishJob(kv, held, { at: this.#now() + backoff, error: failure.message });
      return;
    }
    await finishJob(kv, held, outcome ? outcome.again : undefined);
  }

  #failed(job: JobRecord, error: Error) {
    this.options.onError?.(`${job.payload.kind} ${job.id}`, error);
  }

  #handle(payload: JobPayload): Promise<JobOutcome> {
    const handler = this.options.handlers[payload.kind] as
      | ((ctx: JobContext, p: JobPayload) => Promise<JobOutcome>)
      | undefined;
    // A kind this version does not know is dropped (its record deleted), not retried forever.
    if (!handler) return Promise.resolve();
    return handler(this.options.context, payload);
  }
}
