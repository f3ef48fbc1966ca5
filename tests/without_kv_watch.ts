/**
 * Takes `Deno.Kv.prototype.watch` away, for a store that cannot watch keys: loaded with
 * `--preload` by the service processes of the live event suites (tests/processes/fleet.ts
 * `preloads`), so that their streams must meet the 1-second bound by polling alone.
 */
delete (Deno.Kv.prototype as unknown as Record<string, unknown>).watch;
