import assert from "node:assert/strict";
import { setup, sharedInstances, signUp } from "./helpers.ts";

const loginInit = (email: string, password: string, ip?: string) => ({
  method: "POST",
  json: { email, password },
  ...(ip ? { ip } : {}),
});

async function statuses(answers: Response[]): Promise<number[]> {
  for (const res of answers) await res.body?.cancel();
  return answers.map((res) => res.status);
}

Deno.test("the failed-login limit is counted before the check: 30 wrong passwords at once, at most 10 checked", async (t) => {
  await t.step("one instance", async () => {
    await using svc = await setup();
    const user = await signUp(svc);
    const answers = await statuses(
      await Promise.all(
        Array.from(
          { length: 30 },
          () => svc.request("/v1/auth/token", loginInit(user.email, "wrong password!")),
        ),
      ),
    );
    assert.equal(answers.filter((s) => s === 401).length, 10, `${answers}`);
    assert.equal(answers.filter((s) => s === 429).length, 20, `${answers}`);
  });

  await t.step("two instances on one store", async () => {
    await using fleet = await sharedInstances(2);
    const user = await signUp(fleet.list[0]);
    const answers = await statuses(
      await Promise.all(
        Array.from(
          { length: 30 },
          (_, i) =>
            fleet.list[i % 2].request("/v1/auth/token", loginInit(user.email, "wrong password!")),
        ),
      ),
    );
    assert.equal(answers.filter((s) => s === 401).length, 10, `${answers}`);
    assert.equal(answers.filter((s) => s === 429).length, 20, `${answers}`);
  });

  await t.step("a right password is no failure: it gives its unit back", async () => {
    await using svc = await setup();
    const user = await signUp(svc);
    const answers = await statuses(
      await Promise.all(
        Array.from(
          { length: 15 },
          () => svc.request("/v1/auth/token", loginInit(user.email, user.password)),
        ),
      ),
    );
    // Concurrent right passwords may be held off while ten are in flight, never refused after.
    const after = await svc.request("/v1/auth/token", loginInit(user.email, user.password));
    await after.body?.cancel();
    assert.ok(answers.filter((s) => s === 200).length >= 10, `${answers}`);
    assert.equal(after.status, 200);
  });
});
