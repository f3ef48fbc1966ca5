/**
 * Reading a request's credential: X-API-Key or Authorization, each refused with the way to send
 * it when sent wrongly, and the 401 of a request without one naming a header that looks misnamed.
 */
import { KEY_PREFIX } from "../../domain/api_key.ts";
import { AppError } from "../../domain/errors.ts";

export type Credential =
  | { kind: "api_key"; value: string }
  | { kind: "session"; token: string }
  | { kind: "refused"; error: AppError };

const KEY_FORMS = `X-API-Key: ${KEY_PREFIX}… or Authorization: Bearer ${KEY_PREFIX}…`;
export const HOW_TO_SEND = `send an API key as ${KEY_FORMS}, or a session token as ` +
  "Authorization: Bearer <token>";
// Header names a client may reach for when it means X-API-Key.
const KEY_HEADER_GUESS = /^(x-)?(api[-_]?(key|token)|(access|auth)[-_]?token|token|key)$/i;

/**
 * Reads X-API-Key, or Authorization: Bearer (a key when it has the key prefix, else a JWT). A
 * key sent the wrong way is recognised by its prefix and refused with the way to send it.
 */
export function readCredential(headers: Headers): Credential | null {
  const apiKey = headers.get("X-API-Key")?.trim();
  if (apiKey) {
    if (/^Bearer\s/i.test(apiKey)) {
      return refusedKey("X-API-Key takes the key alone, without Bearer: X-API-Key: svc_…");
    }
    return { kind: "api_key", value: apiKey };
  }
  const authorization = headers.get("Authorization")?.trim();
  if (!authorization) return null;
  if (authorization.startsWith(KEY_PREFIX)) {
    return refusedKey(`An API key in Authorization needs the Bearer scheme: ${KEY_FORMS}`);
  }
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match) {
    const error = new AppError(
      "TOKEN_INVALID",
      `Authorization must be Bearer and one token or key; ${HOW_TO_SEND}`,
    );
    return { kind: "refused", error };
  }
  const value = match[1];
  return value.startsWith(KEY_PREFIX)
    ? { kind: "api_key", value }
    : { kind: "session", token: value };
}

function refusedKey(detail: string): Credential {
  return { kind: "refused", error: new AppError("API_KEY_INVALID", detail) };
}

/** The 401 of a request without a credential, naming a header that looks like a misnamed one. */
export function missingCredential(headers: Headers): AppError {
  for (const [name, value] of headers) {
    if (name === "x-api-key" || name === "authorization") continue;
    const bare = value.trim().replace(/^Bearer\s+/i, "");
    if (bare.startsWith(KEY_PREFIX) || (bare && KEY_HEADER_GUESS.test(name))) {
      return new AppError("TOKEN_MISSING", `The header ${name} is not read: ${HOW_TO_SEND}`);
    }
  }
  return new AppError("TOKEN_MISSING", `No credential: ${HOW_TO_SEND}`);
}
