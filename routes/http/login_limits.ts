/**
 * The failed-login limits (docs/security.md, "Failed logins"): per email and client network,
 * and an email-wide ceiling that networks the account has logged in from are exempt from.
 */
import type { WindowDecision } from "../../domain/rate_limit/rate_window.ts";
import { emailKey } from "../../domain/users/user.ts";
import { holdExact } from "../../kv/rate_limit/exact_limit.ts";
import { isKnownLoginNetwork } from "../../kv/rate_limit/login_networks.ts";
import { LOGIN_FAILURES_PER_EMAIL, LOGIN_FAILURES_PER_NETWORK, rateLimited } from "./rate_limit.ts";

const refused = (decision: WindowDecision) =>
  rateLimited(decision, "Too many failed logins for this email; retry later");

/**
 * Takes a login attempt's units before its password is checked, or throws 429: failures stay
 * counted, `release` gives the units back for a right password. `userId` is the account that
 * has the email, if any (an unknown email is limited alike, so a 429 reveals nothing).
 */
export async function holdLoginAttempt(
  kv: Deno.Kv,
  attempt: { email: string; userId: string | null; network: string; now: number },
): Promise<{ release(): Promise<void> }> {
  const { userId, network, now } = attempt;
  const email = emailKey(attempt.email);
  const known = userId !== null && await isKnownLoginNetwork(kv, userId, network);
  // The network holds no space, so the subject splits one way only.
  const perNetwork = await holdExact(kv, {
    policy: LOGIN_FAILURES_PER_NETWORK,
    subject: `${network} ${email}`,
    now,
  });
  if (!perNetwork.decision.allowed) throw refused(perNetwork.decision);
  const perEmail = known
    ? null
    : await holdExact(kv, { policy: LOGIN_FAILURES_PER_EMAIL, subject: email, now });
  if (perEmail && !perEmail.decision.allowed) {
    await perNetwork.release();
    throw refused(perEmail.decision);
  }
  return {
    async release() {
      await perNetwork.release();
      await perEmail?.release();
    },
  };
}
