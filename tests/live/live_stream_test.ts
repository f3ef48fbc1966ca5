/**
 * GET /events/stream over a real socket (docs/contract.md section 19): the account's events as
 * server-sent events, resumable by Last-Event-ID, filtered by the credential's rights, limited
 * to five per account, ended when the credential is revoked.
 */
import assert from "node:assert/strict";
import { openSse } from "./sse_reader.ts";
import { until } from "../wait.ts";
import { bearerOf, liveKey, liveService, liveUser, postLiveTask, send } from "./live_fixtures.ts";

Deno.test("a task created after the stream opens arrives as id, event and data (its webhook body)", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const before = await postLiveTask(svc.base, bearerOf(user.token), "Before the stream");
  const stream = await openSse(`${svc.base}/api/v1/events/stream`, bearerOf(user.token));
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get("Content-Type") ?? "", /^text\/event-stream/);
  assert.equal(stream.headers.get("X-Accel-Buffering"), "no");
  assert.equal(stream.headers.get("Cache-Control"), "no-store, no-transform");
  const taskId = await postLiveTask(svc.base, bearerOf(user.token), "After the stream");
  const [event] = await stream.received(1);
  assert.equal(event.event, "task.created");
  const body = JSON.parse(event.data);
  assert.equal(body.id, event.id);
  assert.match(body.id, /^evt_[0-9A-Z]{26}$/);
  assert.equal(body.type, "task.created");
  assert.equal(body.data.id, taskId);
  assert.notEqual(body.data.id, before);
  stream.close();
});

Deno.test("Last-Event-ID resumes after that event, each once, in order; an unknown id is 409 EVENT_ID_EXPIRED", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const first = await openSse(`${svc.base}/api/v1/events/stream`, bearerOf(user.token));
  for (let i = 0; i < 3; i++) await postLiveTask(svc.base, bearerOf(user.token), `Task ${i}`);
  const seen = await first.received(3);
  first.close();
  for (let i = 3; i < 6; i++) await postLiveTask(svc.base, bearerOf(user.token), `Task ${i}`);
  const resumed = await openSse(`${svc.base}/api/v1/events/stream`, {
    ...bearerOf(user.token),
    "Last-Event-ID": seen[0].id,
  });
  const got = await resumed.received(5);
  const titles = got.map((e) => JSON.parse(e.data).data.title);
  assert.deepEqual(titles, ["Task 1", "Task 2", "Task 3", "Task 4", "Task 5"]);
  assert.deepEqual(got.slice(0, 2).map((e) => e.id), seen.slice(1).map((e) => e.id));
  resumed.close();

  const byQuery = await openSse(
    `${svc.base}/api/v1/events/stream?lastEventId=${got[4].id}`,
    bearerOf(user.token),
  );
  assert.equal(byQuery.status, 200);
  byQuery.close();
  const unknown = await openSse(`${svc.base}/api/v1/events/stream`, {
    ...bearerOf(user.token),
    "Last-Event-ID": "evt_01JD3YQ5G7N9J7M2X4W8T6V0KC",
  });
  assert.equal(unknown.status, 409);
  assert.equal(unknown.problem?.code, "EVENT_ID_EXPIRED");
  const other = await liveUser(svc.base);
  const foreign = await openSse(`${svc.base}/api/v1/events/stream`, {
    ...bearerOf(other.token),
    "Last-Event-ID": seen[0].id,
  });
  assert.equal(foreign.status, 409, "another account's event is not in this account's log");
});

Deno.test("a key's stream hears only what a webhook of that key would: no task events without tasks:read", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const writer = await liveKey(svc.base, user.token, ["tasks:write", "alerts:read"]);
  const reader = await liveKey(svc.base, user.token, ["tasks:read"]);
  const blind = await openSse(`${svc.base}/api/v1/events/stream`, { "X-API-Key": writer.value });
  const sees = await openSse(`${svc.base}/api/v1/events/stream`, { "X-API-Key": reader.value });
  const session = await openSse(`${svc.base}/api/v1/events/stream`, bearerOf(user.token));
  await postLiveTask(svc.base, { "X-API-Key": writer.value });
  // A key created now: its api_key.created reaches the session only.
  await liveKey(svc.base, user.token, ["profile:read"]);
  const heard = await session.received(2);
  assert.deepEqual(heard.map((e) => e.event), ["task.created", "api_key.created"]);
  await sees.received(1);
  // The session's second event came after the task's: had the blind stream heard it, it would have.
  blind.close();
  sees.close();
  session.close();
  assert.deepEqual(blind.events, []);
  assert.deepEqual(sees.events.map((e) => e.event), ["task.created"]);
});

Deno.test("a ticket opens one stream within 60 s with its credential's rights; used again it is 401 TICKET_INVALID", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const key = await liveKey(svc.base, user.token, ["tasks:read"]);
  const issued = await send(`${svc.base}/api/v1/events/stream-tickets`, {
    method: "POST",
    headers: { "X-API-Key": key.value },
  });
  assert.equal(issued.status, 201);
  assert.match(issued.body.ticket, /^sst_[0-9a-f]{64}$/);
  assert.ok(Date.parse(issued.body.expiresAt) - Date.now() <= 60_000);
  const url = `${svc.base}/api/v1/events/stream?ticket=${issued.body.ticket}`;
  const source = new EventSource(url);
  const opened = new Promise((resolve) => source.onopen = resolve);
  const message = new Promise<MessageEvent>((resolve) =>
    source.addEventListener("task.created", (e) => resolve(e as MessageEvent))
  );
  await opened;
  await postLiveTask(svc.base, bearerOf(user.token), "Seen through a ticket");
  const event = await message;
  assert.equal(JSON.parse(event.data).data.title, "Seen through a ticket");
  assert.match(event.lastEventId, /^evt_/);
  source.close();
  const again = await openSse(url);
  assert.equal(again.status, 401);
  assert.equal(again.problem?.code, "TICKET_INVALID");
  const anonymous = await send(`${svc.base}/api/v1/events/stream-tickets`, { method: "POST" });
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.code, "TOKEN_MISSING");
  const noCredential = await openSse(`${svc.base}/api/v1/events/stream`);
  assert.equal(noCredential.status, 401);
});

Deno.test("at most 5 open streams per account: the sixth is 429 STREAM_LIMIT, and a closed one frees its slot", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const url = `${svc.base}/api/v1/events/stream`;
  const open = [];
  for (let i = 0; i < 5; i++) {
    const stream = await openSse(url, bearerOf(user.token));
    assert.equal(stream.status, 200);
    open.push(stream);
  }
  const sixth = await openSse(url, bearerOf(user.token));
  assert.equal(sixth.status, 429);
  assert.equal(sixth.problem?.code, "STREAM_LIMIT");
  const other = await liveUser(svc.base);
  const elsewhere = await openSse(url, bearerOf(other.token));
  assert.equal(elsewhere.status, 200, "another account's streams are its own");
  elsewhere.close();
  open[0].close();
  // The slot goes back when the server sees the client leave.
  let reopened = await openSse(url, bearerOf(user.token));
  for (let i = 0; reopened.status === 429 && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50));
    reopened = await openSse(url, bearerOf(user.token));
  }
  assert.equal(reopened.status, 200);
  reopened.close();
  for (const stream of open) stream.close();
});

Deno.test("a revoked key's stream ends and sends nothing raised after the revocation's answer", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const key = await liveKey(svc.base, user.token, ["tasks:read", "tasks:write"]);
  const stream = await openSse(`${svc.base}/api/v1/events/stream`, { "X-API-Key": key.value });
  await postLiveTask(svc.base, bearerOf(user.token), "Before the revocation");
  await stream.received(1);
  const revoked = await send(`${svc.base}/api/v1/keys/${key.id}`, {
    method: "DELETE",
    headers: bearerOf(user.token),
  });
  assert.equal(revoked.status, 200);
  const count = stream.events.length;
  await postLiveTask(svc.base, bearerOf(user.token), "After the revocation");
  assert.equal(await stream.ended, true, "the stream ends");
  assert.equal(stream.events.length, count);
  assert.ok(stream.events.every((e) => JSON.parse(e.data).data.title !== "After the revocation"));
});

Deno.test("a key narrowed to other addresses ends its stream; a rename keeps it", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const key = await liveKey(svc.base, user.token, ["tasks:read"]);
  const stream = await openSse(`${svc.base}/api/v1/events/stream`, { "X-API-Key": key.value });
  const patch = (json: unknown) =>
    send(`${svc.base}/api/v1/keys/${key.id}`, {
      method: "PATCH",
      headers: bearerOf(user.token),
      json,
    });
  assert.equal((await patch({ name: "renamed" })).status, 200);
  await postLiveTask(svc.base, bearerOf(user.token), "After the rename");
  assert.equal(JSON.parse((await stream.received(1))[0].data).data.title, "After the rename");
  assert.equal((await patch({ ipWhitelist: ["10.0.0.0/8"] })).status, 200);
  await postLiveTask(svc.base, bearerOf(user.token), "After the narrowing");
  assert.equal(await stream.ended, true, "the stream ends");
  assert.deepEqual(stream.events.map((e) => JSON.parse(e.data).data.title), ["After the rename"]);
});

Deno.test("a session's stream ends at once when it logs out, with nothing else raised", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const stream = await openSse(`${svc.base}/api/v1/events/stream`, bearerOf(user.token));
  assert.equal(stream.status, 200);
  const out = await send(`${svc.base}/v1/auth/logout`, {
    method: "POST",
    headers: bearerOf(user.token),
  });
  assert.equal(out.status, 200);
  let ended: boolean | null = null;
  stream.ended.then((clean) => ended = clean);
  await until(() => ended !== null, { what: "the stream's end", timeoutMs: 20_000 });
  assert.equal(ended, true, "a clean end");
});

Deno.test("an account's feed goes with its last stream here, and a process with no stream stops looking at the signals", async () => {
  await using svc = await liveService();
  const user = await liveUser(svc.base);
  const url = `${svc.base}/api/v1/events/stream`;
  const streams = [
    await openSse(url, bearerOf(user.token)),
    await openSse(url, bearerOf(user.token)),
  ];
  assert.equal(svc.deps.live.accounts, 1, "one feed for the account's two streams");
  assert.equal(svc.deps.live.listening, true);
  streams[0].close();
  await until(() => svc.deps.live.streams === 1, { what: "the first stream's end" });
  assert.equal(svc.deps.live.accounts, 1, "the other stream keeps the feed");
  streams[1].close();
  await until(() => svc.deps.live.streams === 0, { what: "the last stream's end" });
  assert.equal(svc.deps.live.accounts, 0);
  assert.equal(svc.deps.live.listening, false);
});
