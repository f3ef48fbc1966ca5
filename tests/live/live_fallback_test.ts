/**
 * What a stream does where the store's watch fails, and with a client that does not read: in one
 * process, through `app.request`, so the stream's own queue is what fills.
 */
import assert from "node:assert/strict";
import { openSse } from "./sse_reader.ts";
import { bearer, setup, signUp, type TestContext } from "../helpers.ts";
import { LiveHub } from "../../kv/live/hub.ts";
import { taskBody } from "../tasks/task_fixtures.ts";
import { until } from "../wait.ts";

/** A store whose watch breaks at once, as a store's watch may fail. */
function brokenWatch(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, name) {
      if (name === "watch") {
        return () => new ReadableStream({ start: (c) => c.error(new Error("watch is down")) });
      }
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const inProcess = (svc: TestContext) => (url: string, init: RequestInit) =>
  svc.request(url, init as Parameters<TestContext["request"]>[1]);

Deno.test("a feed whose watch fails polls instead, and its stream still gets every event", async () => {
  const kv = await Deno.openKv(":memory:");
  const errors: string[] = [];
  const live = new LiveHub(brokenWatch(kv), {
    mode: { watch: true, poll: false },
    now: Date.now,
    onError: (what) => errors.push(what),
  });
  await using svc = await setup({ kv, deps: { live } });
  const user = await signUp(svc);
  const stream = await openSse(
    "/api/v1/events/stream",
    bearer(user.token) as Record<string, string>,
    {
      fetcher: inProcess(svc),
    },
  );
  assert.equal(stream.status, 200);
  await until(() => errors.length > 0, { what: "the watch's failure" });
  for (let i = 0; i < 3; i++) {
    const res = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: bearer(user.token),
      json: taskBody({ title: `Polled ${i}` }),
    });
    assert.equal(res.status, 201);
  }
  const got = await stream.received(3);
  assert.deepEqual(got.map((e) => JSON.parse(e.data).data.title), [
    "Polled 0",
    "Polled 1",
    "Polled 2",
  ]);
  assert.match(errors[0], /watch/);
  stream.close();
  kv.close();
});

Deno.test("a client that does not read is dropped past its bounded buffer, and resumes by Last-Event-ID", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  // The body is not read: what the stream sends stays in its queue.
  const res = await svc.request("/api/v1/events/stream", { headers: bearer(user.token) });
  assert.equal(res.status, 200);
  const created: string[] = [];
  // About 10 KB a frame: past 1 MiB well before the last.
  const description = "A long description. ".repeat(500);
  for (let i = 0; i < 130 && svc.deps.live.streams > 0; i++) {
    const task = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: bearer(user.token),
      json: taskBody({ title: `Task ${i}`, description }),
    });
    created.push((await task.json()).id);
  }
  await until(() => svc.deps.live.streams === 0, { what: "the stream to be dropped" });
  const text = await res.text();
  const ids = [...text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]);
  assert.ok(ids.length > 0 && ids.length < created.length, `${ids.length} of ${created.length}`);
  assert.ok(text.length <= 1024 * 1024 + 64 * 1024, `${text.length} bytes held for one client`);
  const resumed = await openSse("/api/v1/events/stream", {
    ...bearer(user.token) as Record<string, string>,
    "Last-Event-ID": ids.at(-1)!,
  }, { fetcher: inProcess(svc) });
  const rest = await resumed.received(created.length - ids.length);
  assert.deepEqual(
    [...ids.map((_, i) => created[i]), ...rest.map((e) => JSON.parse(e.data).data.id)],
    created,
  );
  resumed.close();
});
