/** Settings for tests: fast password hashing, a fixed secret, silent logs. */
import { Settings, type SettingsInput } from "../domain/settings.ts";

export function testSettings(overrides: Partial<SettingsInput> = {}): Settings {
  return Settings.parse({
    KV_PATH: ":memory:",
    JWT_SECRET: "test-secret-test-secret-test-secret-0123",
    PASSWORD_HASH_ITERATIONS: 1000,
    // Tests sign up many accounts from one address; the tests of this limit set their own.
    PASSWORD_HASHES_PER_HOUR: 1_000_000,
    // Tests match many tasks for few accounts; the test of this budget sets its own.
    ALERT_DELIVERIES_PER_MINUTE: 1_000_000,
    LOG_LEVEL: "silent",
    ...overrides,
  });
}
