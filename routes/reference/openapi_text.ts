/**
 * The OpenAPI document's prose: the API's description (with the table of error codes, each
 * typed by ErrorCode so none goes undocumented) and its tags.
 */
import { ERROR_STATUS, type ErrorCode } from "../../domain/errors.ts";

/** What each error code means; typed by ErrorCode so a new code cannot go undocumented. */
const ERROR_MEANING: Record<ErrorCode, string> = {
  VALIDATION_ERROR: "body, query or path fails the rules; `errors` lists each problem",
  UNKNOWN_PARAMETER: "a body member (at any depth) or query parameter the endpoint does not " +
    "know; `errors` names each (`path`) with the closest known name, then any other problem",
  INVALID_JSON: "the body is not JSON",
  INVALID_CURSOR: "cursor malformed, or made for another query",
  TOKEN_MISSING: "no credential where one is needed",
  API_KEY_INVALID: "API key malformed, unknown, revoked or expired",
  TOKEN_INVALID: "session token bad, expired or logged out",
  IP_NOT_ALLOWED: "the key has an IP whitelist and the client address is outside it",
  INVALID_CREDENTIALS: "login with a wrong email or password",
  TICKET_INVALID: "a stream ticket that is unknown, used or expired",
  SCOPE_INSUFFICIENT: "the key lacks the endpoint's scope; `scope` names it",
  SESSION_REQUIRED: "an API key where a session token is required",
  FORBIDDEN: "acting on another user's visible resource",
  NOT_A_PARTY: "reviewing someone who is not one's counterpart on the task",
  NOT_FOUND: "unknown resource or route, or another user's private resource",
  METHOD_NOT_ALLOWED: "known path, wrong method (see `Allow`)",
  EMAIL_TAKEN: "sign-up with an email already in use",
  KEY_LIMIT_REACHED: "an 11th active API key",
  WEBHOOK_LIMIT_REACHED: "an 11th webhook endpoint",
  INVALID_TRANSITION: "the resource's state does not allow the change",
  TASK_FULL: "accepting an application past the task's maxPeople",
  ALREADY_APPLIED: "a second active (pending or accepted) application to one task",
  APPLICATION_DECLINED: "applying again to a task whose creator declined one's application",
  TASK_NOT_COMPLETED: "reviewing on a task that is not completed yet",
  ALREADY_REVIEWED: "a second review of the same person on the same task",
  REVIEW_WINDOW_CLOSED: "reviewing from 14 days after the task's completion",
  ALERT_LIMIT: "a 21st task alert",
  ALERT_TOO_BROAD: "an alert that narrows only by minBudget or payment",
  CONVERSATION_CLOSED:
    "a message to a closed conversation (application ended, task gone, 14 days past completion)",
  EVENT_ID_EXPIRED: "resuming a stream after an event the 24-hour log does not hold",
  CONFLICT: "concurrent changes kept the request from completing; retry",
  PAYLOAD_TOO_LARGE: "body over 64 KiB",
  UNSUPPORTED_MEDIA_TYPE: "a body that is not application/json",
  IDEMPOTENCY_KEY_REUSED: "same Idempotency-Key, different body",
  RATE_LIMITED: "the request budget is spent; see `Retry-After`",
  STREAM_LIMIT: "a 6th open event stream of the account",
  INTERNAL_ERROR: "an unexpected failure; the body never carries internals",
  SERVICE_UNAVAILABLE: "storage does not answer",
  STORAGE_FULL: "the store is out of space: reads work, writes wait for space (see `Retry-After`)",
};

export const DESCRIPTION =
  `A REST interface for a task marketplace: users post tasks with a budget, a
location and requirements, and others browse them.

## Credentials

- **API key**: \`X-API-Key: svc_<64 hex>\` or \`Authorization: Bearer svc_<64 hex>\`, on every path.
  Keys carry scopes, may be limited to IP ranges, and expire.
- **Session token**: \`Authorization: Bearer <jwt>\` from \`POST /v1/auth/token\`. A session holds
  every scope and is the only credential that manages API keys or deletes the account.

An endpoint that needs no credential still checks one that is sent. Checks run in this order,
the first failure answering: 401 TOKEN_MISSING; 401 API_KEY_INVALID or TOKEN_INVALID;
401 IP_NOT_ALLOWED; 429 RATE_LIMITED; 403 SCOPE_INSUFFICIENT; 403 SESSION_REQUIRED.

## Rate limits

Every request to a versioned path draws from an hourly budget over a sliding window shared by
every instance: per API key (1000 by default), per account for session tokens (the same size),
per client address without a credential. The window is sixty one-minute slots: a request counts
until its minute is an hour old (59 to 60 minutes). Each response that drew from a budget carries
\`RateLimit-Policy: "default";q=<limit>;w=3600\`, \`RateLimit: "default";r=<remaining>;t=<seconds>\`,
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds): \`t\` and
\`X-RateLimit-Reset\` say when the oldest counted request leaves the window, never more than an
hour ahead. A spent budget answers 429 RATE_LIMITED with \`Retry-After\`, the seconds until one
more request is admitted. Key creation is limited per account (20 a minute by default) and failed
logins per email (10 in 15 minutes), each with its own 429.

## Paging

Cursor-paged listings answer a JSON array. When more items follow, the response carries
\`X-Next-Cursor\` and \`Link: <next page URL>; rel="next"\`; the last page carries neither. A cursor
is opaque and bound to its query's filters. \`limit\` is 1 to 50 (default 20). Order is newest first.

## Webhooks

\`/webhooks\` manages up to 10 endpoints per account (scopes \`webhooks:read\`, \`webhooks:write\`).
Each event (listed under this document's \`webhooks\`) is posted as
\`{id: "evt_<ulid>", type, createdAt, data}\` with the Standard Webhooks headers \`webhook-id\` (the
event id, the same on every retry), \`webhook-timestamp\` and \`webhook-signature\`
(\`v1,<base64 HMAC-SHA256>\` of \`id.timestamp.body\` with the endpoint's \`whsec_\` secret; two
signatures for 24 hours after a rotation). A 2xx within 15 s is success; otherwise the attempt is
retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, and an endpoint failing for 5 days
is disabled (\`disabledReason\`). Only https URLs to public addresses are accepted, checked again at
every attempt; redirects are not followed.

## Errors

Errors are \`application/problem+json\` (RFC 9457) with a stable \`code\` and the \`requestId\`:

| status | code | when |
|---|---|---|
${
    (Object.keys(ERROR_STATUS) as ErrorCode[])
      .map((code) => `| ${ERROR_STATUS[code]} | ${code} | ${ERROR_MEANING[code]} |`)
      .join("\n")
  }

Every response carries \`X-Request-Id\`.`;

export const TAGS = [
  { name: "Tasks", description: "Post, list, browse and delete tasks" },
  { name: "Users", description: "Sign-up, public profiles, one's own account" },
  { name: "Sessions", description: "Log in and out with email and password" },
  { name: "API keys", description: "Scoped, rotatable, IP-restrictable keys (session only)" },
  { name: "Projects", description: "Each user's private projects" },
  {
    name: "Applications",
    description: "Apply to tasks; creators accept or decline, applicants withdraw",
  },
  {
    name: "Reviews",
    description: "After completion, creator and accepted applicants review each other, " +
      "double-blind; ratings on profiles and tasks",
  },
  {
    name: "Alerts",
    description: "Saved explore filters that send task.matched when a matching task is posted",
  },
  {
    name: "Conversations",
    description: "Messages between a task's creator and each applicant, with unread counts",
  },
  {
    name: "Webhooks",
    description: "Signed event deliveries (Standard Webhooks) to the account's endpoints",
  },
  { name: "Security log", description: "Sign-ins and credential changes of one's account" },
  {
    name: "Live events",
    description: "The account's webhook events as a resumable server-sent event stream",
  },
  { name: "Service", description: "Health, this document and its reference page" },
  { name: "Dashboard", description: "The account dashboard: one web page, its script and styles" },
];
