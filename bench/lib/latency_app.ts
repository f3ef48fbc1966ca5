/**
 * A live instance whose every KV call is a network round trip (kv/store/latency.ts), for the
 * benches that count a request's sequential waits as on Deno Deploy (bench:deploy,
 * bench:messages): the app on a temporary store, its background timers, and the samples' table.
 */
import type { Settings } from "../../domain/settings.ts";
import { type RoundTrips, withLatency } from "../../kv/store/latency.ts";
import { createApp } from "../../routes/app.ts";
import { createDeps, instanceTimers } from "../../routes/router/deps.ts";
import type { Deps } from "../../routes/router/env.ts";
import { markdownTable } from "./results.ts";
import { type App, type Init, sendJson } from "./send_json.ts";

/** The instance on its slowed store; use with `await using`. */
export interface LatencyApp {
  /** The store without the delay: for seeding and reading it outside the trace. */
  raw: Deno.Kv;
  /** The store with the delay each call waits for (`delayMs`) and its tracer. */
  slow: ReturnType<typeof withLatency>;
  deps: Deps;
  app: App;
  /** The instance's periodic work; the bench starts it once seeded. */
  background: ReturnType<typeof instanceTimers>;
  /** Sends a request to `target` and reads its JSON body; a failure stops the bench. */
  // deno-lint-ignore no-explicit-any
  sendTo(target: App, path: string, init?: Init): Promise<any>;
  /** `sendTo` the instance's app. */
  // deno-lint-ignore no-explicit-any
  send(path: string, init?: Init): Promise<any>;
  /** Sets the delay a call and lets a few background ticks run at it, so caches are a live one's. */
  settle(delayMs: number): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * The app on a fresh store in a temporary folder, at 0 ms a call; disposing of it stops the
 * background timers and removes the store. `prepare` runs on the raw store before the
 * dependencies are built.
 */
export async function latencyApp(
  settings: Settings,
  prepare?: (raw: Deno.Kv) => Promise<unknown>,
): Promise<LatencyApp> {
  const dir = await Deno.makeTempDir();
  const raw = await Deno.openKv(`${dir}/kv.sqlite3`);
  await prepare?.(raw);
  const slow = withLatency(raw, 0);
  const deps = await createDeps(slow.kv, settings);
  const app = createApp(deps);
  const background = instanceTimers(deps);
  return {
    raw,
    slow,
    deps,
    app,
    background,
    sendTo: sendJson,
    send: (path, init) => sendJson(app, path, init),
    async settle(delayMs) {
      slow.delayMs = delayMs;
      await new Promise((r) => setTimeout(r, 1_000));
      console.log(`${delayMs} ms a call…`);
    },
    async [Symbol.asyncDispose]() {
      await background.stop();
      raw.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** One timed request: its round trips and wall time. */
export interface Sample {
  trips: RoundTrips;
  ms: number;
}

/** The middle value (the lower of the two middles for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** Each request kind's samples by delay, in the order the kinds were first recorded. */
export class TripSamples {
  readonly #byKind = new Map<string, Map<number, Sample[]>>();

  constructor(readonly delays: number[]) {}

  record(name: string, delay: number, sample: Sample) {
    const byDelay = this.#byKind.get(name) ?? new Map<number, Sample[]>();
    byDelay.set(delay, [...byDelay.get(delay) ?? [], sample]);
    this.#byKind.set(name, byDelay);
  }

  /** The median wall time of a kind at a delay. */
  p50(name: string, delay: number): number {
    return median(this.#byKind.get(name)!.get(delay)!.map((s) => s.ms));
  }

  /**
   * A row a kind: round trips at each delay (median, mean, max), KV calls at the first, the median
   * ms at each; with `slopes`, also how many delays longer than at the first each took.
   */
  table(options: { slopes?: boolean } = {}): string {
    const { delays } = this;
    const fmt = (n: number, digits = 1) => n.toFixed(digits);
    const rows = [...this.#byKind].map(([name, byDelay]) => {
      const at = (delay: number) => byDelay.get(delay)!;
      const trips = (delay: number) => at(delay).map((s) => s.trips.sequential);
      const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
      const ms = (delay: number) => this.p50(name, delay);
      return [
        name,
        ...delays.map((d) =>
          `${median(trips(d))} (${fmt(mean(trips(d)), 2)}, max ${Math.max(...trips(d))})`
        ),
        fmt(median(at(delays[0]).map((s) => s.trips.calls)), 0),
        ...delays.map((d) => fmt(ms(d))),
        ...options.slopes ? delays.slice(1).map((d) => fmt((ms(d) - ms(delays[0])) / d, 2)) : [],
      ];
    });
    const head = [
      "request",
      ...delays.map((d) => `round trips at ${d} ms: median (mean, max)`),
      "KV calls",
      ...delays.map((d) => `ms p50 at ${d}`),
      ...options.slopes ? delays.slice(1).map((d) => `(ms − ms at 0) / ${d}`) : [],
    ];
    return markdownTable(head, rows);
  }
}
