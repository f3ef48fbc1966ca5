/**
 * What a stream does by the clock and by the poll (docs/contract.md section 19), over a real
 * socket with the service's clock injected and its signal poll driven by the test: the comment at
 * least every 15 seconds, the end after one hour and the resume after it, and delivery by the
 * first poll after the commit.
 */
import assert from "node:assert/strict";
import { openSse } from "./sse_reader.ts";
import { bearerOf, liveKey, liveService, liveUser, postLiveTask, send } from "./live_fixtures.ts";
import { LiveHub, TICK_MS } from "../../kv/live/hub.ts";
import {
  DELIVERY_BOUND_MS,
  HEARTBEAT_MS,
  POLL_INTERVAL_MS,
  STREAM_MAX_MS,
} from "../../domain/live/live_rules.ts";
import { until } from "../wait.ts";

/** A service whose clock is `clock.now`, and whose hub polls the signals only when told to. */
async function clockedService(options: { poll?: "driven" } = {}) {
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const kv = await Deno.openKv(":memory:");
  const live = new LiveHub(kv, {
    mode: options.poll ? { watch: false, poll: true } : { watch: true, poll: false },
    now,
    onError: (what, error) => console.error(what, error),
    // Never by its timer within a test: the test polls.
    ...options.poll ? { pollIntervalMs: 3_600_000 } : {},
  });
  const svc = await liveService({ kv, deps: { now, live } });
  /** Resolves once the hub has looked at its streams `n` more times. */
  const ticks = async (n: number) => {
    const from = live.ticks;
    await until(() => live.ticks >= from + n, { what: `${n} ticks of the hub` });
  };
  return Object.assign(svc, { clock, live, ticks });
}

Deno.test("a silent stream sends a comment before 15 s of the service's clock pass, none while it stands", async () => {
  await using svc = await clockedService();
  const user = await liveUser(svc.base);
  const stream = await openSse(`${svc.base}/api/v1/events/stream`, bearerOf(user.token));
  assert.equal(stream.status, 200);
  await svc.ticks(2);
  assert.equal(stream.comments, 0, "nothing is due while the clock stands");
  // The hub looks once every TICK_MS: a comment not sent now would come past 15 s.
  for (let comments = 1; comments <= 2; comments++) {
    svc.clock.now += HEARTBEAT_MS - TICK_MS;
    await until(() => stream.comments >= comments, {
      what: `comment ${comments}`,
      timeoutMs: 20_000,
    });
  }
  stream.close();
});

Deno.test("a stream ends when the service's clock passes its hour; EventSource resumes with a new ticket and lastEventId", async () => {
  await using svc = await clockedService();
  const user = await liveUser(svc.base);
  // A key, whose 30 days outlast the hour the clock is moved by.
  const key = await liveKey(svc.base, user.token, ["tasks:read", "tasks:write"]);
  const asKey = { "X-API-Key": key.value };
  const ticketed = async (query = "") => {
    const issued = await send(`${svc.base}/api/v1/events/stream-tickets`, {
      method: "POST",
      headers: asKey,
    });
    return new EventSource(`${svc.base}/api/v1/events/stream?ticket=${issued.body.ticket}${query}`);
  };
  const heard = (source: EventSource) => {
    const titles: string[] = [];
    let lastId = "";
    source.addEventListener("task.created", (e) => {
      titles.push(JSON.parse((e as MessageEvent).data).data.title);
      lastId = (e as MessageEvent).lastEventId;
    });
    return { titles, lastId: () => lastId };
  };
  const first = await ticketed();
  let ended = false;
  await new Promise((resolve, reject) => {
    first.onopen = resolve;
    first.onerror = () => reject(new Error("the first stream did not open"));
  });
  // Its own reconnection would present the used ticket: the client takes a new one instead.
  first.onerror = () => (first.close(), ended = true);
  const firstHeard = heard(first);
  await postLiveTask(svc.base, asKey, "Within the hour");
  await until(() => firstHeard.titles.length === 1, { what: "the first event" });

  svc.clock.now += STREAM_MAX_MS - 2 * TICK_MS;
  await svc.ticks(2);
  assert.equal(first.readyState, EventSource.OPEN, "open until its hour is up");
  assert.equal(svc.live.streams, 1);
  svc.clock.now += 2 * TICK_MS;
  await until(() => ended, { what: "the stream's end", timeoutMs: 20_000 });
  await until(() => svc.live.streams === 0, { what: "the stream's end on the server" });

  await postLiveTask(svc.base, asKey, "While away");
  const second = await ticketed(`&lastEventId=${firstHeard.lastId()}`);
  const secondHeard = heard(second);
  await until(() => secondHeard.titles.length === 1, { what: "the missed event" });
  await postLiveTask(svc.base, asKey, "Live again");
  await until(() => secondHeard.titles.length === 2, { what: "the live event" });
  second.close();
  assert.deepEqual([...firstHeard.titles, ...secondHeard.titles], [
    "Within the hour",
    "While away",
    "Live again",
  ]);
});

Deno.test("where the signals are polled, the first poll after a commit delivers it to every stream of the account", async () => {
  assert.ok(
    POLL_INTERVAL_MS <= DELIVERY_BOUND_MS / 2,
    "a poll interval that leaves the delivery bound room for the poll's own work",
  );
  await using svc = await clockedService({ poll: "driven" });
  const user = await liveUser(svc.base);
  const streams = [
    await openSse(`${svc.base}/api/v1/events/stream`, bearerOf(user.token)),
    await openSse(`${svc.base}/api/v1/events/stream`, bearerOf(user.token)),
  ];
  // The signals as they stand, seen once: what the next poll compares with.
  await svc.live.pollOnce();
  for (let i = 0; i < 3; i++) {
    await postLiveTask(svc.base, bearerOf(user.token), `Polled ${i}`);
    await svc.live.pollOnce();
    for (const stream of streams) {
      const got = await stream.received(i + 1, 10_000);
      assert.equal(JSON.parse(got[i].data).data.title, `Polled ${i}`);
    }
  }
  for (const stream of streams) stream.close();
});
