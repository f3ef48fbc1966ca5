/**
 * Waiting for an event rather than for a time: a test on a loaded machine may take seconds where an
 * idle one takes milliseconds, so a deadline is only a bound against hanging, never a check.
 */

/** Resolves once `condition()` holds, checking every `everyMs`; throws after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 60_000, everyMs = 20, what = "the condition" } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
