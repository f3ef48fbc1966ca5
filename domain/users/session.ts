/** Session tokens: what a signed token claims and how long it lives. */

/** Claims of a session JWT: the user, the session id (revocable in KV), issue and expiry. */
export interface SessionClaims {
  sub: string;
  sid: string;
  iat: number;
  exp: number;
  [claim: string]: unknown;
}

/** Claims for a new session issued at `now` for `ttlHours`. */
export function sessionClaims(
  session: { userId: string; sessionId: string },
  now: number,
  ttlHours: number,
) {
  const { userId, sessionId } = session;
  const iat = Math.floor(now / 1000);
  const claims: SessionClaims = {
    sub: userId,
    sid: sessionId,
    iat,
    exp: iat + Math.round(ttlHours * 3600),
  };
  return claims;
}
