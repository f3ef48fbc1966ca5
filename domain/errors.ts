/**
 * The one error type of the service. Domain and storage code throw `AppError`s; a single
 * handler in `routes/router/problem.ts` turns them into RFC 9457 problem bodies.
 */

/** Every error code a client may see, with the HTTP status it travels with. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNKNOWN_PARAMETER: 400,
  INVALID_JSON: 400,
  INVALID_CURSOR: 400,
  TOKEN_MISSING: 401,
  API_KEY_INVALID: 401,
  TOKEN_INVALID: 401,
  IP_NOT_ALLOWED: 401,
  INVALID_CREDENTIALS: 401,
  TICKET_INVALID: 401,
  SCOPE_INSUFFICIENT: 403,
  SESSION_REQUIRED: 403,
  FORBIDDEN: 403,
  NOT_A_PARTY: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  EMAIL_TAKEN: 409,
  KEY_LIMIT_REACHED: 409,
  WEBHOOK_LIMIT_REACHED: 409,
  INVALID_TRANSITION: 409,
  TASK_FULL: 409,
  ALREADY_APPLIED: 409,
  APPLICATION_DECLINED: 409,
  TASK_NOT_COMPLETED: 409,
  ALREADY_REVIEWED: 409,
  REVIEW_WINDOW_CLOSED: 409,
  ALERT_LIMIT: 409,
  ALERT_TOO_BROAD: 400,
  CONVERSATION_CLOSED: 409,
  EVENT_ID_EXPIRED: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  STREAM_LIMIT: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  STORAGE_FULL: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One problem found by validation, addressed by a dotted path (`location.radiusKm`). */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Extra members a problem body may carry beyond the RFC 9457 ones. */
export interface ProblemExtras {
  errors?: FieldProblem[];
  scope?: string;
  /** With API_KEY_INVALID for a key past its expiry: when it stopped working. */
  expiredAt?: string;
  /** Response headers that belong to the error (`Allow`, `Retry-After`, rate-limit headers). */
  headers?: Record<string, string>;
}

/** A failure the client should hear about, with its code, status and a human-readable detail. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: ProblemExtras;

  constructor(code: ErrorCode, detail: string, extras: ProblemExtras = {}) {
    super(detail);
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.extras = extras;
  }
}

/** Shorthand for the most common error: a resource that does not exist or may not be seen. */
export function notFound(what = "Resource"): AppError {
  return new AppError("NOT_FOUND", `${what} not found`);
}

/** Shorthand for a validation error on one path. */
export function invalid(path: string, message: string): AppError {
  return new AppError("VALIDATION_ERROR", "The request is not valid", {
    errors: [{ path, message }],
  });
}

/**
 * A session that reached a credential write for an account deleted meanwhile (the write checks
 * the account in its atomic): the session is as dead as the account.
 */
export function accountGone(): AppError {
  return new AppError("TOKEN_INVALID", "The account was deleted; its credentials no longer work");
}
