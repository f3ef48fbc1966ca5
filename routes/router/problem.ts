/** The one place where errors become HTTP: RFC 9457 problem+json bodies with a `code`. */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z, ZodError } from "zod";
import { closestName, shownName } from "../../domain/validation/closest_name.ts";
import { AppError, type ErrorCode, type FieldProblem } from "../../domain/errors.ts";
import { storageFull } from "../../kv/commit.ts";
import { noteStorageFull } from "../../kv/store/storage_writes.ts";
import type { AppEnv, Deps } from "./env.ts";
import { knownMembers } from "./request_members.ts";

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Hono's own exceptions (thrown by its validators and helpers) in the service's vocabulary. */
function fromHttpException(error: HTTPException): AppError {
  switch (error.status) {
    case 400:
      return new AppError("INVALID_JSON", "The request body is not valid JSON");
    case 413:
      return new AppError("PAYLOAD_TOO_LARGE", "The request body is larger than 64 KiB");
    case 415:
      return new AppError(
        "UNSUPPORTED_MEDIA_TYPE",
        "The request body must be JSON (Content-Type: application/json)",
      );
    default: {
      const code: ErrorCode = error.status === 401 ? "TOKEN_INVALID" : "INTERNAL_ERROR";
      return new AppError(code, error.message || TITLES[error.status] || "Error");
    }
  }
}

/**
 * Turns zod issues into the `errors` member: one entry per problem, addressed by dotted path,
 * worded by `domain/validation/validation_messages.ts`. Two checks failing alike on one path (a URL's
 * protocol and host) are one problem to the client.
 */
function fieldProblems(issues: ZodError["issues"]): FieldProblem[] {
  const problems = new Map<string, FieldProblem>();
  for (const issue of issues) {
    const path = issue.path.map(String).join(".") || "(root)";
    problems.set(JSON.stringify([path, issue.message]), { path, message: issue.message });
  }
  return [...problems.values()];
}

/** A member the request sent that its schema does not declare, with the name it likely meant. */
interface UnknownMember extends FieldProblem {
  name: string;
  suggestion?: string;
}

/** Every unknown member in `error`, one each, addressed by its own dotted path. */
function unknownMembers(error: ZodError, schema?: z.ZodType): {
  named: UnknownMember[];
  count: number;
} {
  const found: UnknownMember[] = [];
  let count = 0;
  for (const issue of error.issues) {
    if (issue.code !== "unrecognized_keys") continue;
    const known = schema ? knownMembers(schema, issue.path) : new Set<string>();
    for (const name of issue.keys) {
      // The answer's size and the suggestions' work are bounded, however many names were sent.
      if (++count > MAX_NAMED) continue;
      const suggestion = closestName(name, known);
      const hint = suggestion === undefined ? "" : `; did you mean "${suggestion}"?`;
      found.push({
        path: [...issue.path.map(String), shownName(name)].join("."),
        message: `is not a known parameter${hint}`,
        name,
        suggestion,
      });
    }
  }
  return { named: found, count };
}

/** Unknown members named in one answer at most; the detail counts the rest. */
const MAX_NAMED = 20;

/**
 * The error for a request that failed its schema. A member the schema does not know makes it
 * UNKNOWN_PARAMETER, naming each such member and the known name closest to it (from `schema`);
 * its other problems follow in `errors`, so one answer says all that is wrong.
 */
export function validationProblem(error: ZodError, schema?: z.ZodType): AppError {
  const { named: unknown, count } = unknownMembers(error, schema);
  const others = fieldProblems(error.issues.filter((i) => i.code !== "unrecognized_keys"));
  if (unknown.length === 0) {
    return new AppError("VALIDATION_ERROR", "The request is not valid", { errors: others });
  }
  const named = unknown.map((u) =>
    u.suggestion === undefined ? u.path : `${u.path} (did you mean ${u.suggestion}?)`
  );
  const errors = [...unknown.map(({ path, message }) => ({ path, message })), ...others];
  return new AppError(
    "UNKNOWN_PARAMETER",
    `Unknown parameter${count === 1 ? "" : "s"}: ${named.join(", ")}${
      count > unknown.length ? ` and ${count - unknown.length} more` : ""
    }`,
    { errors },
  );
}

/** Writes an AppError as a problem+json response. */
export function problemResponse(c: Context<AppEnv>, error: AppError): Response {
  const body: Record<string, unknown> = {
    type: "about:blank",
    title: TITLES[error.status] ?? "Error",
    status: error.status,
    detail: error.message,
    code: error.code,
    requestId: c.get("requestId"),
  };
  if (error.extras.errors) body.errors = error.extras.errors;
  if (error.extras.scope) body.scope = error.extras.scope;
  if (error.extras.expiredAt) body.expiredAt = error.extras.expiredAt;
  for (const [name, value] of Object.entries(error.extras.headers ?? {})) c.header(name, value);
  c.header("Content-Type", "application/problem+json; charset=utf-8");
  return c.body(JSON.stringify(body), error.status as ContentfulStatusCode);
}

/** What a thrown non-Error value looked like, for the log only; bounded so a huge object cannot flood it. */
function describeThrown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/**
 * Hono hands only `Error`s to `onError`; anything else thrown (`throw "x"`, a promise rejected
 * with a plain object) would escape the app and answer a bare 500 without the request id or a log
 * line. This wraps such values in an Error so they take the same road as any other failure.
 */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error
    ? thrown
    : new Error(`non-Error value thrown: ${describeThrown(thrown)}`, { cause: thrown });
}

/** The app's `onError`: known errors answer as themselves, anything else as a bare 500. */
export function errorHandler(deps: Deps) {
  return (error: Error, c: Context<AppEnv>): Response => {
    // A store out of space is one condition, logged once, not a failure per request; a write
    // that reached the store without the commit helper (none should) answers alike.
    if (noteStorageFull(deps.log, error, { requestId: c.get("requestId") })) {
      return problemResponse(c, error instanceof AppError ? error : storageFull());
    }
    if (error instanceof AppError) return problemResponse(c, error);
    if (error instanceof HTTPException) return problemResponse(c, fromHttpException(error));
    deps.log.error("unhandled error", {
      requestId: c.get("requestId"),
      error: error?.message,
      stack: error?.stack,
    });
    return problemResponse(
      c,
      new AppError("INTERNAL_ERROR", "The server could not complete the request"),
    );
  };
}
