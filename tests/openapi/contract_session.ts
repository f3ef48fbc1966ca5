/** What every contract call is given (two signed-up users and a key) and what it answers. */
import { apiKey, type signUp, type TestContext } from "../helpers.ts";

/** One request of the contract test: a path and its init. */
export type Call = { path: string; init?: Parameters<TestContext["request"]>[1] };

export interface Session {
  svc: TestContext;
  user: Awaited<ReturnType<typeof signUp>>;
  other: Awaited<ReturnType<typeof signUp>>;
  key: string;
}

/** The successful calls of a group of operations, by "METHOD /path" of the document. */
export type Calls = Record<string, (s: Session) => Promise<Call>>;

/** The headers of a call made with the session's API key. */
export function keyHeaders(s: Session): HeadersInit {
  return apiKey(s.key);
}
