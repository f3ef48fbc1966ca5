/**
 * The client's errors: a problem+json answer becomes an ApiError carrying every member of the
 * problem, typed by the document; any other answer outside 2xx and 304 an UnexpectedResponse.
 */
import type { components } from "./schema.d.ts";

type Problem = components["schemas"]["Problem"];

/** Every `code` the service answers with, from the document. */
export type ProblemCode = Problem["code"];

/** An RFC 9457 problem the service answered: `code`, `status`, `detail` and its own members. */
export class ApiError extends Error {
  override name = "ApiError";
  /** The whole problem body, members such as `errors`, `scope` or `expiredAt` included. */
  readonly problem: Problem;
  readonly code: ProblemCode;
  readonly status: number;
  readonly detail: string;
  readonly requestId: string;
  /** With VALIDATION_ERROR and UNKNOWN_PARAMETER: each problem by its dotted path. */
  readonly errors: NonNullable<Problem["errors"]>;
  /** `Retry-After` in seconds, with 429 and 503. */
  readonly retryAfter: number | undefined;
  readonly response: Response;

  constructor(problem: Problem, response: Response) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.problem = problem;
    this.code = problem.code;
    this.status = problem.status;
    this.detail = problem.detail;
    this.requestId = problem.requestId;
    this.errors = problem.errors ?? [];
    const retry = response.headers.get("Retry-After");
    this.retryAfter = retry === null ? undefined : Number(retry);
    this.response = response;
  }
}

/** An answer outside 2xx and 304 that is not problem+json (a proxy's page, say). */
export class UnexpectedResponse extends Error {
  override name = "UnexpectedResponse";
  constructor(readonly response: Response, readonly body: string) {
    super(`${response.status} ${response.statusText}: ${body.slice(0, 200)}`);
  }
}

/** openapi-fetch middleware: throws for every answer that is not a success. */
export async function throwOnError(response: Response): Promise<undefined> {
  if (response.ok || response.status === 304) return undefined;
  const type = response.headers.get("Content-Type") ?? "";
  if (type.startsWith("application/problem+json")) {
    throw new ApiError(await response.clone().json(), response);
  }
  throw new UnexpectedResponse(response, await response.clone().text());
}
