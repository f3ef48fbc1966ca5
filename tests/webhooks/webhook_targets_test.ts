/**
 * Where webhooks may go and what a failure tells: IPv6 forms that embed
 * IPv4, generic refusals, attempt failures as categories.
 */
import assert from "node:assert/strict";
import { ATTEMPT_FAILURES, toAttemptView } from "../../domain/webhooks/delivery.ts";
import { checkTarget, isPublicAddress } from "../../domain/webhooks/webhook_target.ts";
import { bearer, setup, signUp } from "../helpers.ts";
import { startReceiver } from "./webhook_receiver.ts";
import { addEndpoint, failedDelivery, sendTestEvent, workingService } from "./webhook_fixtures.ts";

Deno.test("IPv4-compatible IPv6 webhook targets are accepted: no longer, nor any IPv6 form embedding a private IPv4", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const refused = [
    "https://[::127.0.0.1]/hook", // IPv4-compatible (::/96), loopback inside
    "https://[::a9fe:a9fe]/hook", // IPv4-compatible, the metadata address inside
    "https://[::5db8:d70e]/hook", // IPv4-compatible: deprecated, refused whatever it embeds
    "https://[::ffff:0:a00:1]/hook", // SIIT-translated 10.0.0.1
    "https://[64:ff9b::7f00:1]/hook", // NAT64 to 127.0.0.1
    "https://[64:ff9b::a9fe:a9fe]/hook", // NAT64 to 169.254.169.254
    "https://[64:ff9b:1::a00:1]/hook", // local-use NAT64
    "https://[2002:7f00:1::1]/hook", // 6to4 around 127.0.0.1
    "https://[2002:5db8:d70e::1]/hook", // 6to4: relayed by third parties, refused whatever it embeds
    "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook", // Teredo, client 127.0.0.1 inverted
    "https://[2a00:1450:4001:800:0:5efe:a00:1]/hook", // ISATAP interface id around 10.0.0.1
    "https://[2a00:1450:4001:800:200:5efe:7f00:1]/hook", // ISATAP, universal bit set
  ];
  for (const url of refused) {
    const res = await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      json: { url, events: ["task.created"] },
    });
    assert.equal(res.status, 400, url);
    assert.equal((await res.json()).errors[0].path, "url", url);
  }
  for (const url of ["https://[64:ff9b::5db8:d70e]/hook", "https://[2a00:1450:4001:800::200e]/"]) {
    const res = await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      json: { url, events: ["task.created"] },
    });
    assert.equal(res.status, 201, `${url}: NAT64 to a public address, and plain global IPv6 pass`);
  }
});

Deno.test("the embedded IPv4 address is what counts, in every IPv6 form that carries one", () => {
  assert.equal(isPublicAddress("::ffff:93.184.215.14"), true, "mapped: its IPv4 address");
  assert.equal(isPublicAddress("::ffff:127.0.0.1"), false);
  assert.equal(isPublicAddress("64:ff9b::93.184.215.14"), true, "NAT64 to a public address");
  assert.equal(isPublicAddress("64:ff9b::10.0.0.1"), false);
  assert.equal(isPublicAddress("64:ff9b::100.64.0.1"), false, "NAT64 to shared address space");
  assert.equal(isPublicAddress("::1"), false);
  assert.equal(isPublicAddress("::"), false);
  assert.equal(isPublicAddress("::2"), false, "IPv4-compatible 0.0.0.2");
  assert.equal(isPublicAddress("2606:4700::6810:84e5"), true);
});

Deno.test("webhook errors reveal name resolution: no longer, a refused host gets one generic answer", async () => {
  const policy = (addresses: string[]) => ({
    allowPrivate: false,
    resolve: () => Promise.resolve(addresses),
  });
  const messages = new Set<string>();
  for (const addresses of [["127.0.0.1"], ["10.0.0.7", "93.184.215.14"], []]) {
    const refused = await checkTarget("https://vm/hook", policy(addresses));
    assert.ok(refused instanceof Error);
    assert.doesNotMatch(refused.message, /vm|resolve|127|10\.0/, refused.message);
    messages.add(refused.message);
  }
  const literal = await checkTarget("https://[::ffff:10.0.0.7]/hook", policy([]));
  assert.ok(literal instanceof Error);
  messages.add(literal.message);
  assert.equal(messages.size, 1, "private, unresolvable and literal hosts are not told apart");

  await using svc = await setup();
  const user = await signUp(svc);
  const res = await svc.request("/v1/webhooks", {
    method: "POST",
    headers: bearer(user.token),
    json: { url: "https://169.254.169.254/latest", events: ["task.created"] },
  });
  assert.equal(res.status, 400);
  assert.deepEqual((await res.json()).errors, [{ path: "url", message: [...messages][0] }]);
});

Deno.test("attempt errors show raw connection details: no longer, a failed attempt records its category", async () => {
  await using svc = await workingService({ policy: { retrySchedule: [] } });
  await using receiver = startReceiver();
  receiver.answer = () => new Response("down", { status: 503 });
  const user = await signUp(svc);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = listener.addr.port;
  listener.close();
  const closed = await addEndpoint(svc, user.token, { url: `http://127.0.0.1:${closedPort}/h` });
  const failing = await addEndpoint(svc, user.token, { url: receiver.url });
  await sendTestEvent(svc, user.token, closed.id);
  await sendTestEvent(svc, user.token, failing.id);

  const refused = (await failedDelivery(svc, user.token, closed.id)).history[0];
  assert.equal(refused.category, "connection_failed");
  assert.equal(refused.statusCode, null);
  assert.equal(refused.error, ATTEMPT_FAILURES.connection_failed);
  assert.doesNotMatch(refused.error, /refused|127\.0\.0\.1|\d{4,}|os error/i);
  const answered = (await failedDelivery(svc, user.token, failing.id)).history[0];
  assert.deepEqual(
    { category: answered.category, statusCode: answered.statusCode, error: answered.error },
    { category: "http_status", statusCode: 503, error: null },
  );
});

Deno.test("attempts stored with a raw error are shown by category, their text withheld", () => {
  const stored = (error: string | null, statusCode: number | null = null) => ({
    attempt: 1,
    at: "2026-11-24T10:00:00.000Z",
    statusCode,
    durationMs: 3,
    error,
  });
  const cases: [ReturnType<typeof stored>, string | null][] = [
    [stored("Connection refused (os error 111)"), "connection_failed"],
    [stored("no answer within 15000 ms"), "timeout"],
    [stored("invalid peer certificate: NotValidForName"), "tls"],
    [stored("vm resolves to 127.0.0.1, a private or reserved address"), "target_refused"],
    [stored("the endpoint was deleted"), "endpoint_deleted"],
    [stored(null, 500), "http_status"],
    [stored(null, 204), null],
  ];
  for (const [attempt, category] of cases) {
    const view = toAttemptView(attempt);
    assert.equal(view.category, category, attempt.error ?? String(attempt.statusCode));
    assert.equal(
      view.error,
      category && category !== "http_status" ? ATTEMPT_FAILURES[category as "timeout"] : null,
    );
  }
});

Deno.test("a plain-http webhook URL got only 'url must use https' (issue 46 #4): the message names the local-development setting", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const res = await svc.request("/v1/webhooks", {
    method: "POST",
    headers: bearer(user.token),
    json: { url: "http://localhost:8787/hook", events: ["task.created"] },
  });
  assert.equal(res.status, 400);
  const [error] = (await res.json()).errors;
  assert.equal(error.path, "url");
  assert.match(error.message, /must use https/);
  assert.match(error.message, /WEBHOOK_ALLOW_PRIVATE=true/);
});
