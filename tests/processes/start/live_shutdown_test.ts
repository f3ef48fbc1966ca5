/**
 * SIGTERM with open streams (docs/live-events.md, "Shutdown"): the service ends each stream
 * cleanly and exits at once, instead of waiting out their hour in the server's graceful shutdown.
 */
import assert from "node:assert/strict";
import { fleetSignUp, startFleet } from "../fleet.ts";
import { openSse } from "../../live/sse_reader.ts";

Deno.test("SIGTERM ends open streams cleanly and the process exits", async () => {
  await using fleet = await startFleet(1);
  const token = await fleetSignUp(fleet.base(0), `live-${crypto.randomUUID()}@example.com`);
  const streams = [];
  for (let i = 0; i < 3; i++) {
    const stream = await openSse(`${fleet.base(0)}/api/v1/events/stream`, {
      Authorization: `Bearer ${token}`,
    });
    assert.equal(stream.status, 200);
    streams.push(stream);
  }
  // The server's graceful shutdown waits for every response: an open stream would hold it an hour.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), 30_000));
  const stopped = await Promise.race([fleet.stop(), late]);
  clearTimeout(timer);
  if (!stopped) {
    await fleet.kill(0);
    assert.fail("the process did not stop within 30 s of SIGTERM");
  }
  const [log] = stopped;
  for (const stream of streams) assert.equal(await stream.ended, true, "ended by the server");
  assert.ok(log.some((line) => line.includes("shutting down")));
});
