import assert from "node:assert/strict";
import { parseSettings } from "../../domain/settings.ts";

Deno.test("settings come from the environment, each with a working default", async (t) => {
  await t.step("no settings at all gives the documented defaults", () => {
    const s = parseSettings({});
    assert.equal(s.PORT, 8000);
    assert.equal(s.KV_PATH, undefined);
    assert.equal(s.JWT_SECRET, undefined);
    assert.equal(s.SESSION_TTL_HOURS, 12);
    assert.deepEqual(s.TRUST_PROXY, []);
    assert.equal(s.RATE_LIMIT_PER_HOUR, 1000);
    assert.equal(s.ANON_RATE_LIMIT_PER_HOUR, 1000);
    assert.equal(s.KEY_CREATION_PER_MINUTE, 20);
    assert.equal(s.MESSAGES_PER_MINUTE, 20);
    assert.equal(s.PASSWORD_HASH_ITERATIONS, 600_000);
    assert.equal(s.LOG_LEVEL, "info");
  });

  await t.step("an empty or blank value counts as unset", () => {
    const s = parseSettings({ PORT: "", SESSION_TTL_HOURS: "  ", TRUST_PROXY: "" });
    assert.equal(s.PORT, 8000);
    assert.equal(s.SESSION_TTL_HOURS, 12);
  });

  await t.step("unrelated environment variables are ignored", () => {
    assert.equal(parseSettings({ HOME: "/root", PATH: "/bin" }).PORT, 8000);
  });

  await t.step("good values are parsed into their types", () => {
    const s = parseSettings({
      PORT: "0",
      KV_PATH: ":memory:",
      JWT_SECRET: "x".repeat(32),
      SESSION_TTL_HOURS: "1.5",
      TRUST_PROXY: "10.0.0.0/8, 192.0.2.1 ,2001:db8::/32",
      RATE_LIMIT_PER_HOUR: "50",
      ANON_RATE_LIMIT_PER_HOUR: "7",
      KEY_CREATION_PER_MINUTE: "3",
      PASSWORD_HASH_ITERATIONS: "1000",
      LOG_LEVEL: "silent",
    });
    assert.equal(s.PORT, 0);
    assert.equal(s.KV_PATH, ":memory:");
    assert.equal(s.SESSION_TTL_HOURS, 1.5);
    assert.deepEqual(s.TRUST_PROXY.map((r) => r.text), [
      "10.0.0.0/8",
      "192.0.2.1",
      "2001:db8::/32",
    ]);
    assert.equal(s.RATE_LIMIT_PER_HOUR, 50);
    assert.equal(s.ANON_RATE_LIMIT_PER_HOUR, 7);
    assert.equal(s.KEY_CREATION_PER_MINUTE, 3);
    assert.equal(s.PASSWORD_HASH_ITERATIONS, 1000);
    assert.equal(s.LOG_LEVEL, "silent");
  });

  const bad: [string, string][] = [
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["PORT", "80.5"],
    ["PORT", "0x1f"],
    ["PORT", "-1"],
    ["JWT_SECRET", "too-short"],
    ["SESSION_TTL_HOURS", "0"],
    ["SESSION_TTL_HOURS", "soon"],
    ["TRUST_PROXY", "10.0.0.0/8,proxy.local"],
    ["TRUST_PROXY", "10.0.0.0/33"],
    ["RATE_LIMIT_PER_HOUR", "0"],
    ["RATE_LIMIT_PER_HOUR", "1e3"],
    ["ANON_RATE_LIMIT_PER_HOUR", "many"],
    ["KEY_CREATION_PER_MINUTE", "2.5"],
    ["PASSWORD_HASH_ITERATIONS", "0"],
    ["LOG_LEVEL", "loud"],
  ];
  for (const [name, value] of bad) {
    await t.step(`${name}=${value} is refused with a message naming ${name}`, () => {
      assert.throws(
        () => parseSettings({ [name]: value }),
        (error: Error) => error.message.includes(name),
      );
    });
  }

  await t.step("several bad settings are all named at once", () => {
    assert.throws(
      () => parseSettings({ PORT: "abc", LOG_LEVEL: "loud" }),
      (error: Error) => error.message.includes("PORT") && error.message.includes("LOG_LEVEL"),
    );
  });

  await t.step("a refused JWT_SECRET is not echoed in the message", () => {
    assert.throws(
      () => parseSettings({ JWT_SECRET: "hunter2-secret" }),
      (error: Error) => !error.message.includes("hunter2"),
    );
  });
});

Deno.test("webhook settings: the Standard Webhooks schedule by default, refused when malformed", () => {
  const defaults = parseSettings({});
  assert.equal(defaults.WEBHOOK_ALLOW_PRIVATE, false);
  assert.equal(defaults.SHARE_PORT, false, "a port is shared only on purpose");
  assert.deepEqual(defaults.WEBHOOK_RETRY_SCHEDULE, [
    5_000,
    300_000,
    1_800_000,
    7_200_000,
    18_000_000,
    36_000_000,
    36_000_000,
  ]);
  assert.equal(defaults.WEBHOOK_TIMEOUT, 15_000);
  assert.equal(defaults.WEBHOOK_DISABLE_AFTER, 5 * 86_400_000);
  const fast = parseSettings({
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_RETRY_SCHEDULE: "250ms,1s,1.5m",
    WEBHOOK_TIMEOUT: "2s",
  });
  assert.equal(fast.WEBHOOK_ALLOW_PRIVATE, true);
  assert.deepEqual(fast.WEBHOOK_RETRY_SCHEDULE, [250, 1_000, 90_000]);
  assert.equal(fast.WEBHOOK_TIMEOUT, 2_000);
  for (
    const [name, value] of [
      ["WEBHOOK_ALLOW_PRIVATE", "yes"],
      ["WEBHOOK_RETRY_SCHEDULE", "5s,soon"],
      ["WEBHOOK_TIMEOUT", "15"],
      ["WEBHOOK_DISABLE_AFTER", "0s"],
    ]
  ) {
    assert.throws(() => parseSettings({ [name]: value }), new RegExp(name));
  }
});
