/**
 * Waiting for an event rather than for a time: a test on a loaded machine may take seconds where an
 * idle one takes milliseconds, so a deadline is only a bound against hanging, never a check.
 */

/**
 * Resolves once `condition()` holds, checking every `everyMs`, or less often up to `maxEveryMs`
 * (a check that is a request spends its caller's rate budget); throws after `timeoutMs`.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; everyMs?: number; maxEveryMs?: number; what?: string } = {},
): Promise<void> {
  const { timeoutMs = 60_000, everyMs = 20, what = "the condition" } = options;
  const maxEveryMs = options.maxEveryMs ?? everyMs;
  const deadline = Date.now() + timeoutMs;
  let wait = everyMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(maxEveryMs, wait * 1.5);
  }
}
