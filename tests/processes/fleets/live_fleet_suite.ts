/**
 * The live event suite over real processes on one store (docs/live-events.md): run as it is
 * (tests/processes/fleets/live_fleet_test.ts), with `watch` taken away in every service process
 * (live_fleet_no_watch_test.ts), where streams must meet the same bounds by polling, and over KV
 * Connect (live_fleet_kv_connect_test.ts), where the watch alone sees every process.
 */
import assert from "node:assert/strict";
import { call, type Fleet, fleetSignUp, startFleet } from "../fleet.ts";
import { openSse, type SseConnection } from "../../live/sse_reader.ts";
import { taskBody } from "../../tasks/task_fixtures.ts";
import { until } from "../../wait.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const ENV = { RATE_LIMIT_PER_HOUR: "1000000" };

async function postTask(base: string, token: string, title: string): Promise<string> {
  const res = await call(`${base}/api/v1/tasks`, {
    method: "POST",
    headers: bearer(token),
    json: taskBody({ title }),
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

const taskIdOf = (data: string) => JSON.parse(data).data.id as string;

/** Opens a stream, waiting out a slot still held by a stream its server has not yet seen end. */
async function openRetrying(url: string, headers: Record<string, string>): Promise<SseConnection> {
  for (let attempt = 0;; attempt++) {
    const stream = await openSse(url, headers);
    if (stream.status !== 429 || attempt > 200) return stream;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Where the fleet's store lives: a file in its directory, or a store `open` serves (KV Connect). */
export interface SuiteStore {
  preloads?: string[];
  open?: () => { env: Record<string, string>; close(): Promise<void> };
}

export function liveFleetSuite(label: string, store: SuiteStore = {}) {
  const fleetOf = async (size: number): Promise<Fleet> => {
    const served = store.open?.();
    const fleet = await startFleet(size, { ...ENV, ...served?.env }, undefined, {
      preloads: store.preloads ?? [],
    });
    return Object.assign(fleet, {
      async [Symbol.asyncDispose]() {
        await fleet.stop();
        await served?.close();
      },
    });
  };

  Deno.test(`${label}: events committed on any worker reach the account's streams on every worker, in one order`, async () => {
    await using fleet = await fleetOf(3);
    const token = await fleetSignUp(fleet.base(0), `live-${crypto.randomUUID()}@example.com`);
    const ticketFor = async (i: number) =>
      (await call(`${fleet.base(i)}/api/v1/events/stream-tickets`, {
        method: "POST",
        headers: bearer(token),
      })).body.ticket;
    // Deno's EventSource, as a browser would open it: one per worker.
    const sources: EventSource[] = [];
    const heard: string[][] = [[], [], []];
    for (let i = 0; i < 3; i++) {
      const source = new EventSource(
        `${fleet.base(i)}/api/v1/events/stream?ticket=${await ticketFor(i)}`,
      );
      source.addEventListener("task.created", (e) => heard[i].push((e as MessageEvent).data));
      await new Promise((resolve, reject) => {
        source.onopen = resolve;
        source.onerror = reject;
      });
      sources.push(source);
    }
    const created: string[] = [];
    for (let i = 0; i < 9; i++) created.push(await postTask(fleet.base(i), token, `Task ${i}`));
    const started = Date.now();
    while (heard.some((h) => h.length < 9) && Date.now() - started < 30_000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const source of sources) source.close();
    for (const h of heard) assert.deepEqual(h.map(taskIdOf).toSorted(), created.toSorted());
    // One order for every stream: the account's log order.
    assert.deepEqual(heard[1], heard[0]);
    assert.deepEqual(heard[2], heard[0]);
  });

  Deno.test(`${label}: an EventSource on one process hears what another commits, and ends when its session logs out there`, async () => {
    await using fleet = await fleetOf(2);
    const token = await fleetSignUp(fleet.base(0), `live-${crypto.randomUUID()}@example.com`);
    const ticket = (await call(`${fleet.base(0)}/api/v1/events/stream-tickets`, {
      method: "POST",
      headers: bearer(token),
    })).body.ticket;
    const source = new EventSource(`${fleet.base(0)}/api/v1/events/stream?ticket=${ticket}`);
    const titles: string[] = [];
    source.addEventListener("task.created", (e) => {
      titles.push(JSON.parse((e as MessageEvent).data).data.title);
    });
    await new Promise((resolve, reject) => {
      source.onopen = resolve;
      source.onerror = reject;
    });
    let ended = false;
    // Its own reconnection would present the used ticket: the end is what is waited for.
    source.onerror = () => (source.close(), ended = true);
    for (let i = 0; i < 3; i++) {
      await postTask(fleet.base(1), token, `Elsewhere ${i}`);
      await until(() => titles.length === i + 1, { what: `event ${i} from the other process` });
    }
    // Nothing is raised by a logout: only its signal tells the stream's process.
    const out = await call(`${fleet.base(1)}/v1/auth/logout`, {
      method: "POST",
      headers: bearer(token),
    });
    assert.equal(out.status, 200);
    await until(() => ended, { what: "the stream's end", timeoutMs: 20_000 });
    assert.deepEqual(titles, ["Elsewhere 0", "Elsewhere 1", "Elsewhere 2"]);
  });

  Deno.test(`${label}: after a kill -9 of the worker holding the stream, Last-Event-ID on another resumes with exactly what was missed`, async () => {
    await using fleet = await fleetOf(2);
    const token = await fleetSignUp(fleet.base(0), `live-${crypto.randomUUID()}@example.com`);
    const stream = await openSse(`${fleet.base(0)}/api/v1/events/stream`, bearer(token));
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push(await postTask(fleet.base(1), token, `Before ${i}`));
    const before = await stream.received(3);
    await fleet.kill(0);
    await stream.ended;
    for (let i = 0; i < 4; i++) created.push(await postTask(fleet.base(1), token, `After ${i}`));
    const resumed = await openSse(`${fleet.base(1)}/api/v1/events/stream`, {
      ...bearer(token),
      "Last-Event-ID": before[2].id,
    });
    assert.equal(resumed.status, 200);
    await resumed.received(4);
    created.push(await postTask(fleet.base(1), token, "Live again"));
    await resumed.received(5);
    resumed.close();
    assert.deepEqual([...before, ...resumed.events].map((e) => taskIdOf(e.data)), created);
  });

  Deno.test(`${label}: across 100 reconnections with random gaps to random workers, no event is lost or repeated`, async () => {
    await using fleet = await fleetOf(3);
    const token = await fleetSignUp(fleet.base(0), `live-${crypto.randomUUID()}@example.com`);
    // Open before the first write: a stream without Last-Event-ID starts when it opens.
    const first = await openSse(`${fleet.base(0)}/api/v1/events/stream`, bearer(token));
    const created: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 150; i++) {
        created.push(await postTask(fleet.base(i), token, `Task ${i}`));
        await new Promise((r) => setTimeout(r, Math.random() * 120));
      }
      writing = false;
    })();
    const received: { id: string; taskId: string }[] = [];
    let lastId: string | null = null;
    let stream = first;
    for (let reconnections = 0; reconnections <= 100; reconnections++) {
      const want = stream.events.length + 1 + Math.floor(Math.random() * 3);
      // Until a first event, a client has no id to resume from: its first stream waits for one.
      if (lastId === null) await stream.received(1);
      await Promise.race([
        stream.received(want).catch(() => {}),
        new Promise((r) => setTimeout(r, Math.random() * 150)),
      ]);
      stream.close();
      await stream.ended;
      for (const e of stream.events) received.push({ id: e.id, taskId: taskIdOf(e.data) });
      lastId = received.at(-1)?.id ?? lastId;
      if (reconnections === 100) break;
      await new Promise((r) => setTimeout(r, Math.random() * 30));
      const headers: Record<string, string> = bearer(token);
      if (lastId) headers["Last-Event-ID"] = lastId;
      stream = await openRetrying(
        `${fleet.base(Math.floor(Math.random() * 3))}/api/v1/events/stream`,
        headers,
      );
      assert.equal(stream.status, 200, JSON.stringify(stream.problem));
    }
    await writer;
    assert.equal(writing, false);
    // The rest, on one last stream.
    const headers: Record<string, string> = bearer(token);
    if (lastId) headers["Last-Event-ID"] = lastId;
    const last = await openRetrying(`${fleet.base(1)}/api/v1/events/stream`, headers);
    const missing = created.length - received.length;
    if (missing > 0) await last.received(missing);
    last.close();
    for (const e of last.events) received.push({ id: e.id, taskId: taskIdOf(e.data) });
    const ids = received.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, "no event twice");
    assert.deepEqual(received.map((r) => r.taskId).toSorted(), created.toSorted());
  });

  Deno.test(`${label}: a revoked key's stream sends nothing raised after the revocation's answer`, async () => {
    await using fleet = await fleetOf(3);
    const token = await fleetSignUp(fleet.base(0), `live-${crypto.randomUUID()}@example.com`);
    const key = await call(`${fleet.base(0)}/api/v1/keys`, {
      method: "POST",
      headers: bearer(token),
      json: { name: "stream", scopes: ["tasks:read"], expiresInDays: 1 },
    });
    const stream = await openSse(`${fleet.base(0)}/api/v1/events/stream`, {
      "X-API-Key": key.body.key,
    });
    await postTask(fleet.base(2), token, "Before");
    await stream.received(1);
    const revoked = await call(`${fleet.base(1)}/api/v1/keys/${key.body.id}`, {
      method: "DELETE",
      headers: bearer(token),
    });
    assert.equal(revoked.status, 200);
    const after: string[] = [];
    for (let i = 0; i < 5; i++) after.push(await postTask(fleet.base(i), token, `After ${i}`));
    assert.equal(await stream.ended, true, "the server ends the stream");
    const sent = stream.events.map((e) => taskIdOf(e.data));
    assert.deepEqual(sent.filter((id) => after.includes(id)), []);
  });
}
