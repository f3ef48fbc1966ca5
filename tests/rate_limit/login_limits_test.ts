import assert from "node:assert/strict";
import { setup, sharedInstances, signUp } from "../helpers.ts";

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

Deno.test("no one can lock an owner out: failures count per email and network, under a higher email-wide ceiling", async (t) => {
  await using svc = await setup();
  const home = "198.51.100.7";
  const user = await signUp(svc);
  const login = (password: string, ip: string) =>
    svc.request("/v1/auth/token", loginInit(user.email, password, ip));
  const statusOf = async (res: Promise<Response>) => (await statuses([await res]))[0];
  assert.equal(await statusOf(login(user.password, home)), 200, "the owner's usual network");

  await t.step(
    "10 failures from one address: that address is refused, the owner is not",
    async () => {
      for (let i = 0; i < 10; i++) {
        assert.equal(
          await statusOf(login("wrong!!!", "192.0.2.1")),
          401,
        );
      }
      assert.equal(await statusOf(login(user.password, "192.0.2.1")), 429);
      assert.equal(await statusOf(login(user.password, home)), 200);
      assert.equal(await statusOf(login(user.password, "2001:db8::1")), 200, "a new network too");
    },
  );

  await t.step("an IPv6 /64 is one network", async () => {
    for (let i = 0; i < 10; i++) {
      assert.equal(await statusOf(login("wrong!!!", `2001:db8:0:9::${i + 1}`)), 401);
    }
    assert.equal(await statusOf(login("wrong!!!", "2001:db8:0:9::ff")), 429);
  });

  await t.step(
    "guessing stays bounded: 100 failures per email from networks it never used",
    async () => {
      // 20 so far, from 192.0.2.1 and the IPv6 /64 above: 80 more from 8 other addresses.
      for (let n = 2; n < 10; n++) {
        for (let i = 0; i < 10; i++) {
          assert.equal(await statusOf(login("wrong!!!", `192.0.2.${n}`)), 401);
        }
      }
      assert.equal(await statusOf(login("wrong!!!", "192.0.2.200")), 429, "the ceiling");
      assert.equal(await statusOf(login(user.password, "192.0.2.201")), 429, "a new network");
      assert.equal(await statusOf(login(user.password, home)), 200, "a network it logged in from");
    },
  );
});
