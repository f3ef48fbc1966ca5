/** Service-wide configuration kept in KV, such as the generated session-signing secret. */
import { encodeBase64Url } from "../domain/base64.ts";
import { commit, retryTransient } from "./commit.ts";
import { config } from "./keyspace.ts";

/**
 * The session secret: generated once and kept in KV, so every instance and every restart signs
 * and verifies with the same one. The first writer wins; everyone reads back the stored value.
 */
export async function loadJwtSecret(kv: Deno.Kv): Promise<string> {
  // Every start after the first finds it: one read, not a write and a read.
  const existing = await retryTransient(() => kv.get<string>(config.jwtSecret()));
  if (existing.value) return existing.value;
  const candidate = encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  await commit(
    kv.atomic()
      .check({ key: config.jwtSecret(), versionstamp: null })
      .set(config.jwtSecret(), candidate),
  );
  const stored = await retryTransient(() => kv.get<string>(config.jwtSecret()));
  if (!stored.value) throw new Error("Could not store or read the session secret in KV");
  return stored.value;
}
