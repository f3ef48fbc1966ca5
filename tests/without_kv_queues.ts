/**
 * Takes the KV queue API away, as today's Deno Deploy and KV Connect lack it: loaded with
 * `--preload` (deno task test, and the service processes of tests/processes/fleet.ts) before any of the
 * service's modules, so the service runs exactly as it would there.
 */
delete (Deno.Kv.prototype as unknown as Record<string, unknown>).enqueue;
delete (Deno.Kv.prototype as unknown as Record<string, unknown>).listenQueue;
delete (Deno.AtomicOperation.prototype as unknown as Record<string, unknown>).enqueue;
