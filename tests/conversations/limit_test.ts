/**
 * The sender's limit: 20 messages a minute across all conversations, exact under concurrency;
 * the 21st is 429 with Retry-After and the request budget's headers, and writes nothing; the
 * counterpart's own limit is untouched, and the window slides.
 */
import assert from "node:assert/strict";
import { setup, signUp } from "../helpers.ts";
import { conversation, post, say, thread } from "./fixtures.ts";

Deno.test("20 messages a minute per sender across conversations, exact when sent at once", async () => {
  await using svc = await setup();
  let clock = Date.now();
  svc.deps.now = () => clock;
  const applicant = await signUp(svc, { firstName: "Ann" });
  const one = await conversation(svc, { applicant });
  const two = await conversation(svc, { applicant });
  const answers = await Promise.all(
    Array.from(
      { length: 30 },
      (_, i) =>
        post(svc, applicant, i % 2 ? one.applicationId : two.applicationId, { body: `m${i}` }),
    ),
  );
  const statuses = answers.map((a) => a.status);
  assert.equal(statuses.filter((s) => s === 201).length, 20, JSON.stringify(statuses));
  assert.equal(statuses.filter((s) => s === 429).length, 10);
  const refused = answers.find((a) => a.status === 429)!;
  assert.equal(refused.body.code, "RATE_LIMITED");
  const retryAfter = Number(refused.headers.get("Retry-After"));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
  assert.ok(refused.headers.get("RateLimit-Policy"));
  assert.ok(refused.headers.get("X-RateLimit-Reset"));
  const stored = (await thread(svc, applicant, one.applicationId)).length +
    (await thread(svc, applicant, two.applicationId)).length;
  assert.equal(stored, 20, "a refused message is not written");
  // The counterpart has a limit of its own.
  await say(svc, one.owner, one.applicationId, "I am not limited by Ann");
  clock += 60_000;
  await say(svc, applicant, one.applicationId, "a minute later");
});
