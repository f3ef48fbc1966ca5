/**
 * `message.created` on live streams (docs/contract.md sections 18 and 19), read with Deno's
 * EventSource through a stream ticket: the recipient's stream gets the message, the sender's does
 * not (the sender's next event of its own arrives first and alone), and a key's stream without
 * messages:read hears none of it.
 */
import assert from "node:assert/strict";
import { liveKey, liveService, liveUser, postLiveTask, send } from "../live/live_fixtures.ts";

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** An EventSource on the account's stream, opened with a ticket of `headers`' credential. */
async function listen(base: string, headers: Record<string, string>) {
  const ticket = await send(`${base}/api/v1/events/stream-tickets`, { method: "POST", headers });
  assert.equal(ticket.status, 201, JSON.stringify(ticket.body));
  const source = new EventSource(`${base}/api/v1/events/stream?ticket=${ticket.body.ticket}`);
  const heard: { type: string; data: unknown }[] = [];
  const waiters: (() => void)[] = [];
  for (const type of ["message.created", "task.created"]) {
    source.addEventListener(type, (event) => {
      heard.push({ type, data: JSON.parse((event as MessageEvent).data).data });
      for (const wake of waiters.splice(0)) wake();
    });
  }
  await new Promise((resolve, reject) => {
    source.onopen = resolve;
    source.onerror = reject;
  });
  return {
    heard,
    /** Resolves once `n` events arrived; a bound against hanging, not a check of time. */
    async until(n: number, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (heard.length < n) {
        if (Date.now() > deadline) throw new Error(`${n} events did not arrive: ${heard.length}`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          timer = setTimeout(resolve, 250);
        });
        clearTimeout(timer);
      }
    },
    close: () => source.close(),
  };
}

Deno.test("message.created reaches the recipient's live stream, never the sender's", async () => {
  await using svc = await liveService();
  const owner = await liveUser(svc.base);
  const applicant = await liveUser(svc.base);
  const taskId = await postLiveTask(svc.base, bearer(owner.token), "Paint a fence");
  const applied = await send(`${svc.base}/api/v1/tasks/${taskId}/applications`, {
    method: "POST",
    headers: bearer(applicant.token),
    json: { message: "Me" },
  });
  const ownerStream = await listen(svc.base, bearer(owner.token));
  const applicantStream = await listen(svc.base, bearer(applicant.token));
  const blindKey = await liveKey(svc.base, owner.token, ["tasks:read"]);
  const blind = await listen(svc.base, { "X-API-Key": blindKey.value });
  try {
    const sent = await send(`${svc.base}/api/v1/applications/${applied.body.id}/messages`, {
      method: "POST",
      headers: bearer(applicant.token),
      json: { body: "Which colour?" },
    });
    assert.equal(sent.status, 201);
    await ownerStream.until(1);
    assert.deepEqual(ownerStream.heard[0], {
      type: "message.created",
      data: { message: sent.body, task: { id: taskId, title: "Paint a fence" } },
    });
    // The sender's own next event comes first on its stream: the message never went there.
    await postLiveTask(svc.base, bearer(applicant.token), "Mow a lawn");
    await applicantStream.until(1);
    assert.deepEqual(applicantStream.heard.map((e) => e.type), ["task.created"]);
    // And the key without messages:read hears the owner's next task, not the message.
    await postLiveTask(svc.base, bearer(owner.token), "Wash a car");
    await blind.until(1);
    assert.deepEqual(blind.heard.map((e) => e.type), ["task.created"]);
  } finally {
    ownerStream.close();
    applicantStream.close();
    blind.close();
  }
});
