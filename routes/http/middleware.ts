/** App-wide middleware: the request lifecycle (id, client address, access log) and body limits. */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { monotonicFactory } from "ulid";
import { AppError } from "../../domain/errors.ts";
import { inRanges, parseAddress } from "../../domain/ip.ts";
import type { Settings } from "../../domain/settings.ts";
import { compressAnswer, measureBodies } from "./compress.ts";
import { asError } from "../router/problem.ts";
import type { AppEnv, Deps } from "../router/env.ts";
import { nameSpanByRoute } from "./span_name.ts";

const randomPool = new Uint8Array(4096);
let randomAt = randomPool.length;

/**
 * ulid's own PRNG allocates a buffer and calls getRandomValues for each of a new id's 16 random
 * characters, on every request that starts a new millisecond: the same secure bytes here come
 * from a pool refilled 4 KiB at a time.
 */
function pooledRandom(): number {
  if (randomAt === randomPool.length) {
    crypto.getRandomValues(randomPool);
    randomAt = 0;
  }
  return randomPool[randomAt++] / 256;
}

const newUlid = monotonicFactory(pooledRandom);
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Sets a header on the finished response in place. `c.header` after the handler copies the whole
 * response first, in case its headers are immutable (a fetched response); ours never are, but
 * should one be, it falls back to the copy.
 */
function setHeader(c: Context<AppEnv>, name: string, value: string) {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

/** `setHeader`, adding to the header's values. */
function appendHeader(c: Context<AppEnv>, name: string, value: string) {
  try {
    c.res.headers.append(name, value);
  } catch {
    c.header(name, value, { append: true });
  }
}

/**
 * Everything the app does around every request, in one layer (each Hono layer is a closure, a
 * promise and an await per request): the request id, the client address and the deps before the
 * handler; after it, the response fixed up (request id, JSON charset, HEAD, compression) and the
 * access log.
 * A thrown non-Error value answers through `onError` like any other failure.
 */
export function requestLifecycle(
  deps: Deps,
  onError: (error: Error, c: Context<AppEnv>) => Response,
  routeFor: (path: string) => string | null = () => null,
): MiddlewareHandler<AppEnv> {
  const trusted = deps.settings.TRUST_PROXY;
  return async (c, next) => {
    const started = performance.now();
    const id = assignRequestId(c);
    const answerHeaders: Record<string, string> = { "X-Request-Id": id };
    c.set("answerHeaders", answerHeaders);
    c.set("deps", deps);
    c.set("principal", null);
    c.set("keyInUse", null);
    c.set("clientIp", clientAddress(c, trusted));
    measureBodies(c);
    try {
      await next();
    } catch (thrown) {
      if (thrown instanceof Error) throw thrown;
      c.res = onError(asError(thrown), c);
    }
    nameSpanByRoute(c.req.method, c.req.path, routeFor);
    finishHeaders(c, answerHeaders);
    const keyId = c.get("keyInUse");
    if (keyId !== null) deps.usage.note(keyId, c.res.status, deps.now());
    // Before the HEAD fix-up, so that a HEAD announces the length of what its GET sends.
    compressAnswer(c, isStreamed);
    if (c.req.method === "HEAD") await headLikeGet(c);
    deps.log.info("request", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      requestId: id,
      userId: c.get("principal")?.userId,
    });
  };
}

/**
 * Sets a header of the request's answer, whichever answer leaves (`answerHeaders`, put on it by
 * the request lifecycle); `Vary` adds to what the answer already varies on. Without the
 * lifecycle, through `c.header`.
 */
export function answerHeader(c: Context<AppEnv>, name: string, value: string) {
  const answerHeaders = c.get("answerHeaders");
  if (!answerHeaders) return c.header(name, value, { append: name === "Vary" });
  const before = name === "Vary" ? answerHeaders[name] : undefined;
  answerHeaders[name] = before ? `${before}, ${value}` : value;
}

/** Takes the client's X-Request-Id when it is sane, else mints a ULID (echoed on the answer). */
function assignRequestId(c: Context<AppEnv>): string {
  const sent = c.req.header("X-Request-Id");
  const id = sent && SANE_REQUEST_ID.test(sent) ? sent : newUlid();
  c.set("requestId", id);
  return id;
}

/** True when the request carries a credential, good or bad (docs/contract.md section 2's headers). */
function presentsCredential(c: Context<AppEnv>): boolean {
  return !!(c.req.header("X-API-Key")?.trim() || c.req.header("Authorization")?.trim());
}

/** Headers that describe the handler's own answer (routes/http/shared_cache.ts), not the request. */
const HANDLER_ANSWER_HEADERS = new Set(["ETag", "Cache-Control"]);

/**
 * The request's own headers (its id, its budget's) on whichever answer it gets, and JSON labelled
 * `application/json; charset=utf-8`, as the contract fixes (docs/contract.md §1). No response is
 * sniffed into another type, and none to a request that presented a credential may be stored by
 * any cache: it was answered for that credential (see docs/security.md, "Cache headers").
 * Set on the finished answer, not with `c.header` before it exists: Hono copies such headers into
 * every response it builds, one by one, and a Headers copy costs several times a set.
 */
function finishHeaders(c: Context<AppEnv>, answerHeaders: Record<string, string>) {
  const headers = c.res.headers;
  const status = c.res.status;
  // An error that replaced the handler's answer (a 429 decided after a page was built, since a
  // request may run ahead of its budget's grant) is not that answer: its shared-cache headers
  // would let a CDN hand one caller's refusal to every anonymous reader.
  const replaced = status >= 400;
  for (const name in answerHeaders) {
    if (replaced && HANDLER_ANSWER_HEADERS.has(name)) continue;
    if (name === "Vary") appendHeader(c, name, answerHeaders[name]);
    else setHeader(c, name, answerHeaders[name]);
  }
  if (headers.get("Content-Type") === "application/json") {
    setHeader(c, "Content-Type", "application/json; charset=utf-8");
  }
  // nosniff is the header's only value: set whether or not a handler set it.
  setHeader(c, "X-Content-Type-Options", "nosniff");
  // A 429 speaks of one caller's budget. An authenticated caller presented a credential: its
  // headers need not be read again.
  // An answer already `no-store` keeps its own directives (a stream's `no-transform`).
  const own = headers.get("Cache-Control") ?? "";
  if (
    (status === 429 || c.get("principal") !== null || presentsCredential(c)) &&
    !/\bno-store\b/.test(own)
  ) {
    setHeader(c, "Cache-Control", "no-store");
  }
}

/** Responses whose body is streamed as it is read: their length is unknown until the end. */
const streamed = new WeakSet<Response>();
const isStreamed = (res: Response) => streamed.has(res);

/**
 * A response streaming `body` (a GET), or, for HEAD, the same headers over an empty stream, so
 * a HEAD reads nothing behind the stream and the server announces no length for it either.
 */
export function streamedResponse(
  method: string,
  body: () => ReadableStream<Uint8Array>,
  init: ResponseInit,
): Response {
  const res = new Response(
    method === "HEAD" ? new ReadableStream({ start: (c) => c.close() }) : body(),
    init,
  );
  streamed.add(res);
  return res;
}

/**
 * HEAD answers as GET without the body (Hono already routes it as GET and drops the body). The
 * GET body's length becomes `Content-Length`, because a bodiless response otherwise leaves the
 * server to announce `Content-Length: 0`, which is false for the resource. A streamed response
 * has no length to announce (its GET sends none): it stays a stream, and is not read.
 */
async function headLikeGet(c: Context<AppEnv>) {
  const res = c.res;
  if (streamed.has(res)) return;
  const headers = new Headers(res.headers);
  const bodiless = res.status === 204 || res.status === 304;
  if (res.body && !bodiless && !headers.has("Content-Length")) {
    headers.set("Content-Length", String((await res.arrayBuffer()).byteLength));
  } else {
    await res.body?.cancel();
  }
  c.res = new Response(null, { status: res.status, headers });
}

/** Refuses bodies over 64 KiB, whether announced by Content-Length or streamed. */
export function limitBody(): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new AppError("PAYLOAD_TOO_LARGE", "The request body is larger than 64 KiB");
    },
  });
}

/**
 * The client address: the TCP peer, or, when the peer is a trusted proxy, the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy.
 */
function clientAddress(c: Context<AppEnv>, trusted: Settings["TRUST_PROXY"]): string {
  const peerText = c.env?.remoteAddr?.hostname ?? "";
  let client = parseAddress(peerText);
  if (client && trusted.length > 0 && inRanges(client, trusted)) {
    const hops = (c.req.header("X-Forwarded-For") ?? "").split(",").map((s) => s.trim());
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseAddress(hops[i]);
      if (!hop) break;
      client = hop;
      if (!inRanges(hop, trusted)) break;
    }
  }
  return client?.toString() ?? peerText;
}
