/** Per-run samples of the benches' figures, and a step timed in wall clock and process CPU. */
import process from "node:process";

/** Milliseconds of wall clock and of the process's CPU (all its threads) that `step` took. */
export async function timed<T>(
  step: () => Promise<T>,
): Promise<{ value: T; ms: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await step();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { value, ms, cpu: (cpu.user + cpu.system) / 1000 };
}

/** Per-task samples of one figure. */
export class Samples {
  readonly #values: number[] = [];
  add(value: number) {
    this.#values.push(value);
  }
  at(q: number): number {
    const sorted = [...this.#values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  }
  get max() {
    return Math.max(...this.#values);
  }
  get mean() {
    return this.#values.reduce((a, b) => a + b, 0) / this.#values.length;
  }
  /** "p50 / p99", in ms. */
  spread(digits = 1): string {
    return `${this.at(0.5).toFixed(digits)} / ${this.at(0.99).toFixed(digits)}`;
  }
  /** "p50 / max", as integers. */
  counts(): string {
    return `${this.at(0.5)} / ${this.max}`;
  }
}
