/**
 * The service for `bench:live`, in a process of its own so that its memory and CPU are its own:
 * `:memory:` KV (one instance: its watch sees every commit), or with `--poll` the store's `watch`
 * taken away so that streams poll, or with `--bare` Deno.serve alone answering every request with
 * an endless stream. Prints `{"port"}` once listening; each `stats` line on stdin
 * answers one JSON line of its memory, CPU and KV reads.
 */
import process from "node:process";
import { createApp } from "../../routes/app.ts";
import { createDeps } from "../../routes/router/deps.ts";
import { countReads } from "../lib/kv_counter.ts";
import { benchSettings } from "../lib/service.ts";

if (Deno.args.includes("--poll")) {
  delete (Deno.Kv.prototype as unknown as Record<string, unknown>).watch;
}
// Deno.serve alone, each GET answered by a stream that never ends: what the runtime itself holds
// for an open streamed answer, beneath anything of the service's.
const bare = Deno.args.includes("--bare");
const retry = new TextEncoder().encode("retry: 1000\n\n");

const counting = countReads(await Deno.openKv(":memory:"));
const deps = await createDeps(
  counting.kv,
  benchSettings({ RATE_LIMIT_PER_HOUR: 10_000_000, ANON_RATE_LIMIT_PER_HOUR: 10_000_000 }),
);
const app = createApp(deps);
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  bare
    ? () => new Response(new ReadableStream({ start: (c) => c.enqueue(retry) }))
    : (request, info) => app.fetch(request, info),
);
console.log(JSON.stringify({ port: server.addr.port, mode: bare ? null : deps.live.mode }));

const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
let buffer = "";
for await (const text of lines) {
  buffer += text;
  let at;
  while ((at = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, at).trim();
    buffer = buffer.slice(at + 1);
    if (line !== "stats") continue;
    (globalThis as { gc?: () => void }).gc?.();
    const cpu = process.cpuUsage();
    const memory = Deno.memoryUsage();
    console.log(JSON.stringify({
      rss: memory.rss,
      heap: memory.heapUsed,
      heapTotal: memory.heapTotal,
      external: memory.external,
      cpuMs: (cpu.user + cpu.system) / 1000,
      reads: counting.counts.calls,
      feedReads: deps.live.feedReads,
      streams: deps.live.streams,
    }));
  }
}
await deps.live.close();
await server.shutdown();
