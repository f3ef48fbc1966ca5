/**
 * The settings every bench's service starts from, as `Settings.parse` takes them: fast password
 * hashing, a fixed secret, silent logs. Free of imports so that a bench running an earlier commit's
 * code hands them to that commit's own schema.
 */
export const BENCH_SETTINGS = {
  KV_PATH: ":memory:",
  JWT_SECRET: "bench-secret-bench-secret-bench-secret-01",
  PASSWORD_HASH_ITERATIONS: 1000,
  PASSWORD_HASHES_PER_HOUR: 1_000_000,
  LOG_LEVEL: "silent",
} as const;
