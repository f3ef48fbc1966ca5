/** Command-line flags of the benches: `--name=value`, numbers only. */

/** The positive number given as `--name=<n>`, or `fallback`; anything else stops the bench. */
export function numberFlag(name: string, fallback: number): number {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.slice(name.length + 3)) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}
