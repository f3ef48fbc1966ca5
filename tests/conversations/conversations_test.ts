/**
 * Conversations over the app and a real store: an exchange between an application's parties, the
 * thread newest first, the conversations page with its counterpart, last message and unread
 * count, the read marker that only moves forward, and who may see what.
 */
import assert from "node:assert/strict";
import { apiKey, createKey, setup, signUp } from "../helpers.ts";
import { conversation, conversationsOf, markRead, post, say, send, thread } from "./fixtures.ts";

Deno.test("an exchange: both parties post, list the thread and see their unread counts", async () => {
  await using svc = await setup();
  const { owner, applicant, applicationId, taskId } = await conversation(svc);
  const first = await say(svc, applicant, applicationId, "  When can I come?  ");
  assert.equal(first.body, "When can I come?");
  assert.equal(first.senderId, applicant.id);
  assert.equal(first.taskId, taskId);
  assert.equal(first.applicationId, applicationId);
  assert.match(first.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.ok(!Number.isNaN(Date.parse(first.createdAt)));
  const second = await say(svc, owner, applicationId, "Saturday at ten, the blue door.");
  const third = await say(svc, owner, applicationId, "Bring a screwdriver.");
  assert.ok(first.id < second.id && second.id < third.id);

  const listed = await thread(svc, applicant, applicationId);
  assert.deepEqual(listed.map((m) => m.id), [third.id, second.id, first.id]);
  assert.deepEqual(listed[2], first);

  const mine = (await conversationsOf(svc, applicant)).body;
  assert.equal(mine.length, 1);
  assert.deepEqual(mine[0], {
    applicationId,
    taskId,
    taskTitle: "Assemble a desk",
    applicationStatus: "pending",
    counterpart: { id: owner.id, firstName: "Olga" },
    lastMessage: { id: third.id, senderId: owner.id, body: third.body, createdAt: third.createdAt },
    unread: 2,
  });
  const theirs = (await conversationsOf(svc, owner)).body;
  assert.equal(theirs[0].unread, 1);
  assert.deepEqual(theirs[0].counterpart, { id: applicant.id, firstName: "Ann" });

  const read = await markRead(svc, applicant, applicationId, second.id);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.deepEqual(read.body, { unread: 1 });
  const back = await markRead(svc, applicant, applicationId, first.id);
  assert.deepEqual(back.body, { unread: 1 }, "the marker never moves back");
  assert.deepEqual((await markRead(svc, applicant, applicationId, third.id)).body, { unread: 0 });
  assert.equal((await conversationsOf(svc, applicant)).body[0].unread, 0);
  // Reading up to one's own message counts the counterpart's before it.
  assert.deepEqual((await markRead(svc, owner, applicationId, first.id)).body, { unread: 0 });
});

Deno.test("the conversations page: latest message first, then those without, newest application first", async () => {
  await using svc = await setup();
  const owner = await signUp(svc, { firstName: "Olga" });
  const a = await conversation(svc, { owner, title: "Task A" });
  const b = await conversation(svc, { owner, title: "Task B" });
  const c = await conversation(svc, { owner, title: "Task C" });
  await conversation(svc, { owner, title: "Task D" });
  await say(svc, a.applicant, a.applicationId, "first");
  await say(svc, c.applicant, c.applicationId, "second");
  const order = (await conversationsOf(svc, owner)).body.map((x: { taskTitle: string }) =>
    x.taskTitle
  );
  assert.deepEqual(order, ["Task C", "Task A", "Task D", "Task B"]);
  await say(svc, owner, a.applicationId, "third");
  const paged: string[] = [];
  let cursor = "";
  do {
    const res = await conversationsOf(svc, owner, `?limit=1&cursor=${cursor}`);
    paged.push(...res.body.map((x: { taskTitle: string }) => x.taskTitle));
    cursor = res.headers.get("X-Next-Cursor") ?? "";
  } while (cursor);
  assert.deepEqual(paged, ["Task A", "Task C", "Task D", "Task B"]);
  const { body } = await conversationsOf(svc, b.applicant);
  assert.equal(body.length, 1);
  assert.equal(body[0].lastMessage, null);
  assert.equal(body[0].unread, 0);
  const bad = await send(svc, "/api/v1/conversations?cursor=nope", { token: owner.token });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, "INVALID_CURSOR");
  const other = await conversationsOf(svc, owner, "?limit=1");
  const foreign = await send(
    svc,
    `/api/v1/conversations?cursor=${other.headers.get("X-Next-Cursor")}`,
    { token: a.applicant.token },
  );
  assert.equal(foreign.body.code, "INVALID_CURSOR", "a cursor is bound to its owner");
});

Deno.test("the thread pages newest first and never repeats or skips while messages arrive", async () => {
  await using svc = await setup({ settings: { MESSAGES_PER_MINUTE: 1000 } });
  const { owner, applicant, applicationId } = await conversation(svc);
  const posted: string[] = [];
  for (let i = 0; i < 7; i++) posted.push((await say(svc, owner, applicationId, `m${i}`)).id);
  const seen: string[] = [];
  let cursor = "";
  let extra = 0;
  do {
    const res = await send(
      svc,
      `/api/v1/applications/${applicationId}/messages?limit=2&cursor=${cursor}`,
      { token: applicant.token },
    );
    assert.equal(res.status, 200);
    seen.push(...res.body.map((m: { id: string }) => m.id));
    cursor = res.headers.get("X-Next-Cursor") ?? "";
    // New messages between pages sort before the first page: the pages go on where they were.
    posted.push((await say(svc, applicant, applicationId, `new ${extra++}`)).id);
  } while (cursor);
  assert.deepEqual(seen, posted.slice(0, 7).reverse());
  const all = await thread(svc, owner, applicationId, 3);
  assert.deepEqual(all.map((m) => m.id), [...posted].reverse());
});

Deno.test("bodies: trimmed, 1 to 4,000 characters, the text rules of a description", async () => {
  await using svc = await setup();
  const { applicant, applicationId } = await conversation(svc);
  const cases: [unknown, string][] = [
    [{ body: "" }, "body"],
    [{ body: "   \n " }, "body"],
    [{ body: "x".repeat(4001) }, "body"],
    [{ body: "bell \u0007" }, "body"],
    [{ body: "nul \u0000" }, "body"],
    [{ body: 42 }, "body"],
    [{}, "body"],
  ];
  for (const [json, path] of cases) {
    const res = await post(svc, applicant, applicationId, json);
    assert.equal(res.status, 400, JSON.stringify(json));
    assert.equal(res.body.code, "VALIDATION_ERROR");
    assert.ok(
      res.body.errors.some((e: { path: string }) => e.path === path),
      JSON.stringify(res.body),
    );
  }
  const extra = await post(svc, applicant, applicationId, { body: "hi", senderId: "x" });
  assert.equal(extra.status, 400);
  assert.equal((await say(svc, applicant, applicationId, "x".repeat(4000))).body.length, 4000);
  const lines = await say(svc, applicant, applicationId, "line one\nline two\r\n\ttabbed");
  assert.equal(lines.body, "line one\nline two\r\n\ttabbed");
  assert.equal((await thread(svc, applicant, applicationId)).length, 2, "nothing half-written");
});

Deno.test("only the two parties: 404 for anyone else and unknown ids, 401 without a credential", async () => {
  await using svc = await setup();
  const { owner, applicant, applicationId } = await conversation(svc);
  const message = await say(svc, owner, applicationId, "hello");
  const stranger = await signUp(svc, { firstName: "Sam" });
  const paths = [
    ["POST", `/api/v1/applications/${applicationId}/messages`, { body: "hi" }],
    ["GET", `/api/v1/applications/${applicationId}/messages`, undefined],
    ["PUT", `/api/v1/applications/${applicationId}/read`, { upTo: message.id }],
  ] as const;
  for (const [method, path, json] of paths) {
    const foreign = await send(svc, path, { method, token: stranger.token, json });
    assert.equal(foreign.status, 404, `${method} ${path}`);
    assert.equal(foreign.body.code, "NOT_FOUND");
    const unknown = path.replace(applicationId, crypto.randomUUID());
    assert.equal((await send(svc, unknown, { method, token: owner.token, json })).status, 404);
    const anonymous = await send(svc, path, { method, json });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, "TOKEN_MISSING");
    // A segment that is no id matches no route (docs/request-flow.md).
    const malformed = path.replace(applicationId, "not-a-uuid");
    assert.equal((await send(svc, malformed, { method, token: owner.token, json })).status, 404);
  }
  assert.deepEqual((await conversationsOf(svc, stranger)).body, []);
  assert.equal((await send(svc, "/api/v1/conversations")).status, 401);
  // The read marker takes only a message of this conversation.
  const other = await conversation(svc, { owner });
  const elsewhere = await say(svc, owner, other.applicationId, "elsewhere");
  for (const upTo of [elsewhere.id, "01J0000000000000000000000Z", "nope", 7]) {
    const res = await markRead(svc, applicant, applicationId, upTo);
    assert.equal(res.status, 400, JSON.stringify(upTo));
    assert.equal(res.body.code, "VALIDATION_ERROR");
  }
});

Deno.test("scopes: messages:read lists and marks, messages:write posts; a session holds both", async () => {
  await using svc = await setup();
  const { owner, applicationId } = await conversation(svc);
  const reader = await createKey(svc, owner.token, { scopes: ["messages:read"] });
  const writer = await createKey(svc, owner.token, { scopes: ["messages:write"] });
  const denied = await send(svc, `/api/v1/applications/${applicationId}/messages`, {
    method: "POST",
    headers: apiKey(reader.value),
    json: { body: "hi" },
  });
  assert.equal(denied.status, 403);
  assert.equal(denied.body.code, "SCOPE_INSUFFICIENT");
  assert.equal(denied.body.scope, "messages:write");
  const sent = await send(svc, `/api/v1/applications/${applicationId}/messages`, {
    method: "POST",
    headers: apiKey(writer.value),
    json: { body: "hi" },
  });
  assert.equal(sent.status, 201);
  const cannotRead = await send(svc, "/api/v1/conversations", { headers: apiKey(writer.value) });
  assert.equal(cannotRead.status, 403);
  assert.equal(cannotRead.body.scope, "messages:read");
  const listed = await send(svc, "/api/v1/conversations", { headers: apiKey(reader.value) });
  assert.equal(listed.status, 200);
});
