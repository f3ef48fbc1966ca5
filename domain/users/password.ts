/**
 * Password hashing with PBKDF2-SHA-256 from WebCrypto. Stored form:
 * `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`, so the iteration count can rise later.
 */
import { decodeBase64, encodeBase64 } from "../base64.ts";
import { constantTimeEqual } from "../bytes.ts";

const HASH_BITS = 256;

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    material,
    HASH_BITS,
  );
  return new Uint8Array(bits);
}

/** Hashes a password with a fresh 16-byte salt. */
export async function hashPassword(password: string, iterations: number): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, iterations);
  return `pbkdf2-sha256$${iterations}$${encodeBase64(salt)}$${encodeBase64(hash)}`;
}

/** Checks a password against a stored hash in constant time; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterationsText, saltText, hashText] = stored.split("$");
  const iterations = Number(iterationsText);
  if (scheme !== "pbkdf2-sha256" || !Number.isInteger(iterations) || iterations < 1) return false;
  const expected = decodeBase64(hashText ?? "");
  const actual = await derive(password, decodeBase64(saltText ?? ""), iterations);
  return constantTimeEqual(actual, expected);
}
