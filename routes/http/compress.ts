/**
 * Response compression: a JSON or text answer of 2 KiB or more, and every streamed listing, goes
 * out gzip-compressed to a client that accepts it; smaller answers, whose few packets gzip would
 * not shorten, go out as they are and cost nothing extra.
 */
import type { Context } from "hono";
import type { AppEnv } from "../router/env.ts";
import { listMembers } from "./list_headers.ts";

/** Bodies shorter than this (in UTF-16 units of their text, or bytes) are not compressed. */
export const MIN_COMPRESSED_LENGTH = 2048;

const COMPRESSIBLE =
  /^(?:application\/(?:json|problem\+json|javascript|xml)|text\/|image\/svg\+xml)/i;

/** True when Accept-Encoding names gzip without refusing it (`gzip;q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  return listMembers(header).some((member) => {
    const [coding, ...params] = member.split(";").map((part) => part.trim().toLowerCase());
    if (coding !== "gzip") return false;
    const q = params.find((param) => param.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function lengthOf(data: unknown): number {
  if (typeof data === "string") return data.length;
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) return data.byteLength;
  return 0;
}

/**
 * Notes the length of every body the request's handlers build through `c.body` and `c.json`
 * (every answer but a stream or one made by hand), so that deciding to compress reads no body.
 * The two replacements are module functions that find the context as `this`, and the length rides
 * on the context: closures made per request and stored on it, or a WeakMap keyed by each response,
 * made every request pay for them in the collector (`deno task bench:http`).
 */
export function measureBodies(c: Context<AppEnv>) {
  const raw = c as unknown as Measured;
  raw.body = measuredBody;
  raw.json = measuredJson;
}

type HeaderRecord = Record<string, string | string[]>;
interface Measured {
  set: (key: "builtBody", value: { res: Response; length: number }) => void;
  newResponse: (data: unknown, arg?: unknown, headers?: HeaderRecord) => Response;
  body: (this: Measured, data: unknown, arg?: unknown, headers?: HeaderRecord) => Response;
  json: (this: Measured, object: unknown, arg?: unknown, headers?: HeaderRecord) => Response;
}

function measuredBody(this: Measured, data: unknown, arg?: unknown, headers?: HeaderRecord) {
  const res = this.newResponse(data, arg, headers);
  this.set("builtBody", { res, length: lengthOf(data) });
  return res;
}

/** Hono's own `c.json`, spelled through `c.body`. */
function measuredJson(this: Measured, object: unknown, arg?: unknown, headers?: HeaderRecord) {
  return this.body(JSON.stringify(object), arg, { "Content-Type": "application/json", ...headers });
}

/** The length of `res`'s body when a handler built it through `c.body` or `c.json`, else 0. */
function builtLength(c: Context<AppEnv>, res: Response): number {
  const built = c.get("builtBody");
  return built?.res === res ? built.length : 0;
}

function addVary(headers: Headers) {
  const vary = headers.get("Vary");
  if (vary === "*" || listMembers(vary ?? "").some((m) => m.toLowerCase() === "accept-encoding")) {
    return;
  }
  headers.set("Vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
}

/**
 * Compresses the finished answer (a HEAD's too, whose headers and length are its GET's) when it is worth it: a
 * compressible type, no encoding of its own, not marked no-transform, and either streamed
 * (`isStream`) or built at 2 KiB or more. Such an answer varies by Accept-Encoding whatever this
 * client sent; it is gzipped only for a client that takes gzip, keeping the stream a stream.
 */
export function compressAnswer(c: Context<AppEnv>, isStream: (res: Response) => boolean) {
  const res = c.res;
  // Sizes first: reading `res.body` turns a body held whole into a stream, sent as one. A body
  // built at 2 KiB or more, or streamed, is there: it is read only to be gzipped.
  if (res.status === 206) return;
  if (!isStream(res) && builtLength(c, res) < MIN_COMPRESSED_LENGTH) return;
  const headers = res.headers;
  if (headers.has("Content-Encoding") || !COMPRESSIBLE.test(headers.get("Content-Type") ?? "")) {
    return;
  }
  if (listMembers(headers.get("Cache-Control") ?? "").includes("no-transform")) return;
  addVary(headers);
  if (!acceptsGzip(c.req.header("Accept-Encoding")) || !res.body) return;
  const gzipped = new Response(res.body.pipeThrough(new CompressionStream("gzip")), res);
  gzipped.headers.set("Content-Encoding", "gzip");
  gzipped.headers.delete("Content-Length");
  const etag = gzipped.headers.get("ETag");
  // The gzip and plain forms share the tag: it can only be weak.
  if (etag && !etag.startsWith("W/")) gzipped.headers.set("ETag", `W/${etag}`);
  c.res = gzipped;
}
