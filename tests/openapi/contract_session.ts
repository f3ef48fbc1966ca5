/** What every contract call is given (two signed-up users and a key) and what it answers. */
import type { signUp, TestContext } from "../helpers.ts";

/** One request of the contract test: a path and its init. */
export type Call = { path: string; init?: Parameters<TestContext["request"]>[1] };

export interface Session {
  svc: TestContext;
  user: Awaited<ReturnType<typeof signUp>>;
  other: Awaited<ReturnType<typeof signUp>>;
  key: string;
}
